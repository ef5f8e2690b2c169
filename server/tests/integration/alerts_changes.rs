//! The changes of jobs' definitions told to the alert targets whose `kinds` include "changed"
//! (`server::alerts::changes`), over the worker of `metrics.rs`, read as of the fixture's now:
//! its jobs' schedules are the fleet file's, so a fleet file edited while Sundial is down is a
//! change its first read after the start records. The alerter ticks when the test says.
use crate::alerts::{QUICK, at, next, receiver, start, subjects};
use crate::metrics::{NIGHTLY, instances, write_worker};
use server::alerts::Alerter;
use std::path::Path;
use sundial_engine::changes::{Change, ChangeKind, Value};

/// The fleet file, the nightly load's schedule `nightly` (the worker's is "0 13 * * *").
fn fleet(dir: &Path, nightly: &str, alerts: &str) -> server::config::FleetConfig {
    let fleet = instances(&dir.join("worker.sqlite"), dir).replace(
        "schedule = \"0 13 * * *\"\n[[instance.job]]\nname = \"Backup\"",
        &format!("schedule = \"{nightly}\"\n[[instance.job]]\nname = \"Backup\""),
    );
    assert!(fleet.contains(nightly), "{fleet}");
    let text = format!(
        "store = {:?}\npublic_url = \"https://sundial.example/\"\n{fleet}\n{alerts}",
        dir.join("store.sqlite").to_string_lossy(),
    );
    server::config::parse(&text, "fleet.toml").unwrap_or_else(|e| panic!("{e}"))
}

async fn started(
    config: &server::config::FleetConfig,
) -> (std::sync::Arc<server::fleet::FleetBackend>, std::sync::Arc<Alerter>) {
    let backend = start(config).await;
    let alerter = Alerter::start(backend.clone(), config, "https://sundial.example", QUICK)
        .await
        .expect("the alerts start")
        .expect("alerts are configured");
    (backend, alerter)
}

#[tokio::test]
async fn a_change_is_told_once_to_the_targets_asking_for_it_across_restarts_never_by_default() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let (url, mut rx) = receiver(0).await;
    // "problems" takes every kind of problem (no kinds), but nothing within its day of grace.
    let alerts = format!(
        "[[alert]]\nname = \"changes\"\nurl = \"{url}/changes\"\nkinds = [\"changed\"]\n\
         [[alert]]\nname = \"problems\"\nurl = \"{url}/problems\"\ngrace = \"24h\"\nmin_severity = \"info\"\n"
    );
    let config = fleet(dir.path(), "0 13 * * *", &alerts);
    let (backend, alerter) = started(&config).await;
    // A change kept from before the target was first seen: it starts from its first tick.
    let store = server::store::Store::open(&dir.path().join("store.sqlite")).await.expect("the store");
    let old = Change {
        job: "old".into(),
        name: "Old job".into(),
        kind: ChangeKind::Added,
        before: None,
        after: Some(Value::Text("0 1 * * *".into())),
        seen: at(-120),
        modified: None,
    };
    let write = server::store::history::Write {
        changes: vec![(
            "old".into(),
            at(-120).timestamp_micros(),
            "added".into(),
            serde_json::to_string(&old).unwrap(),
        )],
        ..Default::default()
    };
    server::store::history::write(&store, "worker", &write).await.expect("written");
    // The reads are as of the fixture's now (at(0)): the first tick before it.
    assert_eq!(alerter.tick(at(-10)).await, [], "no history is told");
    assert_eq!(alerter.tick(at(-9)).await, []);
    drop((backend, alerter));

    // While Sundial is down, the nightly load is moved to 14:00: its first read after the start
    // sees the change, told to "changes" once, and never to "problems".
    let config = fleet(dir.path(), "0 14 * * *", &alerts);
    let (backend, alerter) = started(&config).await;
    let subject = format!("[CHANGED] worker / {NIGHTLY}: schedule changed");
    assert_eq!(subjects(&alerter.tick(at(-8)).await), [("changes", subject.as_str())]);
    assert_eq!(alerter.tick(at(-7)).await, []);
    let r = next(&mut rx).await;
    assert_eq!(r.path, "/hook/changes");
    let body = &r.body;
    assert_eq!((body["type"].as_str(), body["subject"].as_str()), (Some("changed"), Some(subject.as_str())), "{body}");
    let c = &body["changes"][0];
    assert_eq!(
        (c["instance"].as_str(), c["job"].as_str(), c["change"].as_str()),
        (Some("worker"), Some(NIGHTLY), Some("schedule")),
        "{body}"
    );
    assert!(c["before"].as_str().unwrap().contains("0 13 * * *"), "{c}");
    assert!(c["after"].as_str().unwrap().contains("0 14 * * *"), "{c}");
    assert_eq!(c["seen"], "2026-03-07T13:40:00Z");
    let link = c["link"].as_str().unwrap();
    assert!(link.starts_with("https://sundial.example/jobs/") && link.ends_with("&instance=worker#changes"), "{link}");
    assert!(body["text"].as_str().unwrap().contains("0 13 * * * → 0 14 * * *"), "{body}");
    assert_eq!(body["changes"].as_array().map(Vec::len), Some(1), "the history before the target is not told");
    drop((backend, alerter));

    // Restarted: not told again.
    let (backend, alerter) = started(&config).await;
    assert_eq!(alerter.tick(at(-6)).await, []);
    assert_eq!(alerter.tick(at(1)).await, []);
    drop(backend);
    assert!(rx.try_recv().is_err(), "nothing else: {:?}", rx.try_recv());
}

#[tokio::test]
async fn quiet_hours_hold_changes_until_they_end_and_a_pagerduty_target_is_refused_them() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let (url, mut rx) = receiver(0).await;
    // The reads are as of 13:40 UTC; quiet from 13:30 to 14:00 (a change is info: held).
    let alerts = format!(
        "[[alert]]\nname = \"quiet\"\nurl = \"{url}/quiet\"\nkinds = [\"changed\", \"missed\"]\ngrace = \"24h\"\n\
         quiet = \"13:30-14:00\"\nquiet_severity = \"critical\"\n"
    );
    let config = fleet(dir.path(), "0 13 * * *", &alerts);
    let (backend, alerter) = started(&config).await;
    assert_eq!(alerter.tick(at(-20)).await, [], "13:20: the target starts");
    drop((backend, alerter));
    let config = fleet(dir.path(), "0 15 * * *", &alerts);
    let (backend, alerter) = started(&config).await;
    assert_eq!(alerter.tick(at(-5)).await, [], "13:35: held in quiet hours");
    let (backend, alerter) = {
        drop((backend, alerter));
        started(&config).await
    };
    assert_eq!(alerter.tick(at(19)).await, [], "13:59, after a restart: still held");
    let subject = format!("[CHANGED] worker / {NIGHTLY}: schedule changed");
    assert_eq!(subjects(&alerter.tick(at(20)).await), [("quiet", subject.as_str())], "14:00: told");
    assert_eq!(alerter.tick(at(21)).await, []);
    assert_eq!(next(&mut rx).await.body["subject"], subject.as_str());
    drop(backend);
    assert!(rx.try_recv().is_err(), "nothing else");

    let text = "store = \"s.sqlite\"\n[[instance]]\nname = \"w\"\nkind = \"jobactivity\"\npath = \"w.sqlite\"\n\
                [[alert]]\nname = \"pager\"\nformat = \"pagerduty\"\nrouting_key = \"k\"\nkinds = [\"changed\"]\n";
    let e = server::config::parse(text, "fleet.toml").expect_err("refused").to_string();
    assert!(e.contains("fleet.toml") && e.contains("kinds") && e.contains("PagerDuty"), "{e}");
}
