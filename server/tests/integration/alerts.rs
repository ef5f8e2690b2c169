//! Webhook alerts over a fleet file (the worker of `metrics.rs`: `ETL - Nightly Load` missed
//! today's 13:00 run), delivered to a receiver on loopback that hands each request to the test
//! through a channel. The alerter ticks when the test says (`tick(now)`); the fleet is read as
//! of the fixture's now, every second, so a run written to the table is seen by the next reads.
use crate::metrics::{NIGHTLY, NOW, instances, nightly_ran, write_worker};
use crate::support::t;
use crate::support::web;
use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;
use server::alerts::Alerter;
use server::alerts::send::{Retry, TargetStatus, backoff};
use server::fleet::FleetBackend;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// A request the receiver got: its path, its JSON, and the status it answered.
#[derive(Debug)]
pub(crate) struct Received {
    pub(crate) path: String,
    pub(crate) body: Value,
    pub(crate) status: StatusCode,
}

/// A webhook receiver on 127.0.0.1 answering 500 to its first `failing` requests, then 200.
pub(crate) async fn receiver(failing: usize) -> (String, mpsc::UnboundedReceiver<Received>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let seen = Arc::new(AtomicUsize::new(0));
    let app = Router::new().route(
        "/hook/{name}",
        post(move |uri: axum::http::Uri, body: String| {
            let (tx, seen) = (tx.clone(), seen.clone());
            async move {
                let n = seen.fetch_add(1, Ordering::SeqCst);
                let status = if n < failing { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK };
                let body = serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
                let _ = tx.send(Received { path: uri.path().to_owned(), body, status });
                status
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the receiver serves") });
    (format!("http://{addr}/hook"), rx)
}

/// The next request, which must come (bounded: a guard, not a measure).
pub(crate) async fn next(rx: &mut mpsc::UnboundedReceiver<Received>) -> Received {
    tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .expect("a request within 60 s")
        .expect("the receiver runs")
}

/// Wait until the target's status satisfies `f` (it changes only by the sender's attempts).
pub(crate) async fn status_until(
    rx: &mut watch::Receiver<TargetStatus>,
    f: impl Fn(&TargetStatus) -> bool,
) -> TargetStatus {
    tokio::time::timeout(Duration::from_secs(60), rx.wait_for(|s| f(s)))
        .await
        .expect("within 60 s")
        .expect("the sender runs")
        .clone()
}

pub(crate) const QUICK: Retry =
    Retry { first: Duration::from_millis(20), max: Duration::from_millis(80), timeout: Duration::from_secs(5) };

pub(crate) fn at(minutes: i64) -> DateTime<Utc> {
    t(NOW) + TimeDelta::minutes(minutes)
}

/// The fleet file: the worker, the gone instance, Sundial's store, and `alerts`.
pub(crate) fn fleet(dir: &Path, alerts: &str) -> server::config::FleetConfig {
    let text = format!(
        "store = {:?}\npublic_url = \"https://sundial.example/\"\n{}\n{alerts}",
        dir.join("store.sqlite").to_string_lossy(),
        instances(&dir.join("worker.sqlite"), dir)
    );
    server::config::parse(&text, "fleet.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// A fleet as of the fixture's now, its first reads done.
pub(crate) async fn start(config: &server::config::FleetConfig) -> Arc<FleetBackend> {
    let backend = FleetBackend::start_at(config, Some(t(NOW))).await.expect("the fleet starts");
    for i in &config.instances {
        let _ = sundial_model::ssr::Backend::snapshot(backend.as_ref(), &i.name).await;
    }
    backend
}

/// Two reads of `instance` that started after this call.
pub(crate) async fn reads_after_now(backend: &FleetBackend, instance: &str) {
    let mut rx = backend.poll_state(instance).expect("the instance");
    let seen = rx.borrow().attempts;
    tokio::time::timeout(Duration::from_secs(60), rx.wait_for(|s| s.attempts >= seen + 2))
        .await
        .expect("two reads within 60 s")
        .expect("the poller runs");
}

pub(crate) fn subjects(queued: &[(String, String)]) -> Vec<(&str, &str)> {
    queued.iter().map(|(t, s)| (t.as_str(), s.as_str())).collect()
}

#[tokio::test]
async fn one_missed_run_one_alert_one_recovery_and_no_duplicate_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let (url, mut rx) = receiver(0).await;
    let alerts = format!(
        "[[alert]]\nname = \"oncall\"\nurl = \"{url}/oncall\"\nformat = \"json\"\ngrace = \"5m\"\nmin_severity = \"error\"\n\
         [[alert]]\nname = \"chat\"\nurl = \"{url}/chat\"\nformat = \"slack\"\ngrace = \"5m\"\nremind = \"0\"\n"
    );
    let config = fleet(dir.path(), &alerts);
    let backend = start(&config).await;
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK)
        .await
        .expect("the alerts start")
        .expect("alerts are configured");
    assert!(alerter.is_persistent());

    // Within the grace: nothing. After it: the missed run and the crashed report, once per
    // target each (the gone instance's "unreachable" too: critical).
    assert_eq!(alerter.tick(at(1)).await, []);
    let queued = alerter.tick(at(6)).await;
    let mut want = vec![
        ("oncall", "[DOWN] GONE".to_owned()),
        ("oncall", format!("[MISSED] worker / {NIGHTLY}")),
        ("oncall", "[FAILED] worker / Report \"daily\"".to_owned()),
    ];
    want.extend(want.clone().into_iter().map(|(_, s)| ("chat", s)));
    let mut got: Vec<(&str, String)> = subjects(&queued).into_iter().map(|(t, s)| (t, s.to_owned())).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let mut by_subject = std::collections::BTreeMap::new();
    for _ in 0..6 {
        let r = next(&mut rx).await;
        let subject = match r.path.as_str() {
            "/hook/oncall" => r.body["subject"].as_str().unwrap().to_owned(),
            "/hook/chat" => r.body["blocks"][0]["text"]["text"].as_str().unwrap().to_owned(),
            other => panic!("{other}"),
        };
        by_subject.insert((r.path.clone(), subject), r.body);
    }
    // Sundial's JSON: the kind, the evidence, the absolute deep link to the moment.
    let json = &by_subject[&("/hook/oncall".to_owned(), format!("[MISSED] worker / {NIGHTLY}"))];
    assert_eq!(json["type"], "alert", "{json}");
    let p = &json["problems"][0];
    assert_eq!(
        (p["kind"].as_str(), p["subject"].as_str(), p["severity"].as_str()),
        (Some("missed"), Some("MISSED"), Some("error"))
    );
    assert_eq!((p["instance"].as_str(), p["job"].as_str()), (Some("worker"), Some(NIGHTLY)));
    assert!(p["evidence"].as_str().unwrap().contains("2026-03-07 13:00 UTC missed"), "{p}");
    let link = p["link"].as_str().unwrap();
    assert!(link.starts_with("https://sundial.example/jobs/"), "{link}");
    assert!(link.ends_with("?at=2026-03-07T13:00:00Z&instance=worker"), "{link}");
    assert_eq!(json["triage"], "https://sundial.example/triage");
    assert_eq!(p["since"], "2026-03-07T13:00:00Z", "RFC 3339 in the instance's zone (UTC)");
    // Slack's: a header with the subject, a section with the evidence and the link.
    let slack = &by_subject[&("/hook/chat".to_owned(), format!("[MISSED] worker / {NIGHTLY}"))];
    assert!(slack["text"].as_str().unwrap().starts_with(&format!("[MISSED] worker / {NIGHTLY}")), "{slack}");
    let section = slack["blocks"][1]["text"]["text"].as_str().unwrap();
    assert_eq!(slack["blocks"][1]["text"]["type"], "mrkdwn");
    assert!(
        section.contains(&format!("<{link}|Open the evidence>")) && section.contains("13:00 UTC missed"),
        "{section}"
    );

    // Later polls: nothing again.
    assert_eq!(alerter.tick(at(7)).await, []);
    assert_eq!(alerter.tick(at(30)).await, []);

    // Sundial restarts: a new fleet and alerter over the same store send nothing again.
    let backend = start(&config).await;
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK).await.unwrap().unwrap();
    assert_eq!(alerter.tick(at(31)).await, []);

    // The run is written; once read, exactly one recovery per target, with the count missed.
    nightly_ran(&dir.path().join("worker.sqlite")).await;
    reads_after_now(&backend, "worker").await;
    let queued = alerter.tick(at(32)).await;
    assert_eq!(
        subjects(&queued),
        [
            ("oncall", &*format!("[RESOLVED MISSED] worker / {NIGHTLY}")),
            ("chat", &*format!("[RESOLVED MISSED] worker / {NIGHTLY}"))
        ]
    );
    let mut recoveries = Vec::new();
    for _ in 0..2 {
        recoveries.push(next(&mut rx).await);
    }
    let json = recoveries.iter().find(|r| r.path == "/hook/oncall").expect("the JSON target's recovery");
    assert_eq!(json.body["type"], "resolved");
    assert_eq!(json.body["problems"][0]["counted"], "1 run missed");
    assert!(json.body["text"].as_str().unwrap().contains("resolved (1 run missed)"), "{}", json.body);
    assert_eq!(alerter.tick(at(33)).await, []);

    // Every sender is idle with nothing queued: nothing else was or will be delivered.
    for (_, mut status) in alerter.status() {
        status_until(&mut status, |s| s.queued == 0 && s.delivered == 1).await;
    }
    assert!(rx.try_recv().is_err(), "no other request");
}

/// A subscriber writing to a buffer, for the calling thread (the test's runtime runs its
/// tasks there).
#[derive(Clone, Default)]
pub(crate) struct Logs(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    /// Every log line of the calling thread from now until the guard drops, at every level.
    pub(crate) fn capture() -> (Logs, tracing::subscriber::DefaultGuard) {
        let logs = Logs::default();
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        (logs, tracing::subscriber::set_default(subscriber))
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

#[tokio::test]
async fn a_failing_target_is_retried_with_backoff_and_blocks_nothing_and_its_url_stays_secret() {
    let (logs, _logging) = Logs::capture();

    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    // A target answering 500 three times, and one whose port is closed.
    let (url, mut rx) = receiver(3).await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    const SECRET: &str = "T000-SECRET-B000-TOKEN";
    let alerts = format!(
        "[[alert]]\nname = \"flaky\"\nurl = \"{url}/flaky\"\ngrace = \"0\"\n\
         [[alert]]\nname = \"down\"\nurl = \"http://127.0.0.1:{closed}/services/{SECRET}\"\nformat = \"slack\"\ngrace = \"0\"\n"
    );
    let config = fleet(dir.path(), &alerts);
    assert!(!format!("{config:?}").contains(SECRET), "the configuration prints no URL");
    let backend = start(&config).await;
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK).await.unwrap().unwrap();
    let status: std::collections::BTreeMap<String, watch::Receiver<TargetStatus>> =
        alerter.status().into_iter().collect();

    // Deciding queues and returns: it waits for no delivery.
    let queued = alerter.tick(at(0)).await;
    assert_eq!(queued.len(), 6, "{queued:?}");

    // The flaky target: three 500s, then the same message accepted; waits doubling, capped.
    let first = next(&mut rx).await;
    assert_eq!(first.status, StatusCode::INTERNAL_SERVER_ERROR);
    for n in 1..4 {
        let again = next(&mut rx).await;
        assert_eq!(again.body, first.body, "the same message again");
        assert_eq!(again.status, if n < 3 { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK });
    }
    let mut flaky = status["flaky"].clone();
    let s = status_until(&mut flaky, |s| s.queued == 0).await;
    assert_eq!((s.delivered, s.attempts - s.delivered), (3, 3), "{s:?}");
    assert_eq!(s.waits, [Duration::from_millis(20), Duration::from_millis(40), Duration::from_millis(80)]);
    assert_eq!(backoff(&QUICK, 10), Duration::from_millis(80), "capped");
    assert_eq!(backoff(&Retry::default(), 30), Duration::from_secs(300), "capped at 5 minutes by default");

    // The closed port: retried, failing, and meanwhile the fleet is read and pages answer.
    let mut down = status["down"].clone();
    let s = status_until(&mut down, |s| s.failures_in_a_row >= 3).await;
    assert_eq!(s.delivered, 0);
    assert_eq!(s.queued, 3);
    let error = s.last_error.clone().unwrap();
    assert!(error.starts_with("cannot connect"), "{error}");
    reads_after_now(&backend, "worker").await;
    assert_eq!(alerter.tick(at(1)).await, [], "a failing target changes no decision");
    let state = web::state(backend.clone());
    for page in ["/api/triage", "/triage", "/metrics", "/api/instances"] {
        let (code, body) = web::get(&state, page).await;
        assert_eq!(code, StatusCode::OK, "{page}");
        assert!(!body.contains(SECRET) && !body.contains(&url), "{page} shows no webhook URL");
    }
    status_until(&mut down, |s| s.failures_in_a_row >= 4).await;

    // The URL is in no error and no log line. (What this thread logged: tracing's callsite
    // cache may hide events while other tests run, so their presence is the browser test's
    // to check, on the server's own output.)
    for s in [down.borrow().clone(), flaky.borrow().clone()] {
        assert!(!format!("{s:?}").contains(SECRET), "{s:?}");
    }
    let logged = logs.text();
    assert!(!logged.contains(SECRET), "{logged}");
}

#[test]
fn alert_configuration_errors_name_the_field_and_line_and_never_the_url() {
    let err = |alert: &str| {
        let text = format!("[[instance]]\nname = \"a\"\nkind = \"sqlite_demo\"\npath = \"/x\"\n\n{alert}");
        server::config::parse(&text, "fleet.toml").expect_err("refused").to_string()
    };
    let e = err("[[alert]]\nname = \"x\"\nurl = \"ftp://hooks/SECRET\"\n");
    assert!(e.starts_with("fleet.toml:8: alert[0].url = ***:"), "{e}");
    assert!(!e.contains("SECRET"), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nurl_env = \"X\"\nformat = \"telegram\"\n");
    assert!(
        e.starts_with("fleet.toml:9: alert[0].format = \"telegram\": not json, slack, email, pagerduty or teams"),
        "{e}"
    );
    // The channels' own fields, and routing.
    let e = err("[[alert]]\nname = \"x\"\nurl_env = \"X\"\nkinds = [\"missed\", \"mised\"]\n");
    assert!(
        e.starts_with("fleet.toml:9: alert[0].kinds = \"mised\": not a kind of problem, nor \"changed\": one of unreachable, scheduler_stopped, zombie, missed, failed, running_long, too_short, no_success, next_run_disagrees, stale, deadline_missed, changed"),
        "{e}"
    );
    let e = err(
        "[[alert]]\nname = \"x\"\nformat = \"email\"\nurl = \"smtp://u:SECRET@relay:25\"\nfrom = \"a@b.c\"\nto = [\"d@e.f\"]\n",
    );
    assert!(e.starts_with("fleet.toml:9: alert[0].url = ***: STARTTLS must be required"), "{e}");
    assert!(!e.contains("SECRET"), "{e}");
    let e = err(
        "[[alert]]\nname = \"x\"\nformat = \"email\"\nurl_env = \"X\"\nfrom = \"not an address\"\nto = [\"d@e.f\"]\n",
    );
    assert!(e.starts_with("fleet.toml:10: alert[0].from = \"not an address\": not an email address"), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nformat = \"email\"\nurl_env = \"X\"\nfrom = \"a@b.c\"\n");
    assert!(e.starts_with("fleet.toml:6: alert[0].to = (missing)"), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nformat = \"pagerduty\"\nrouting_key_env = \"K\"\nremind = \"1h\"\n");
    assert!(e.starts_with("fleet.toml:10: alert[0].remind = \"1h\": PagerDuty escalates by its own rules"), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nformat = \"pagerduty\"\n");
    assert!(e.starts_with("fleet.toml:6: alert[0].routing_key_env = (missing)"), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nurl_env = \"X\"\nto = [\"d@e.f\"]\n");
    assert!(e.contains("alert[0].to = (set): only for format = \"email\""), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nurl_env = \"X\"\ntags = { env = 3 }\n");
    assert!(e.starts_with("fleet.toml:"), "a wrong type is a syntax error with its line, never a panic: {e}");
    let e = err("[[alert]]\nname = \"x\"\nurl_env = \"X\"\ngrace = \"soon\"\n");
    assert!(e.starts_with("fleet.toml:9: alert[0].grace = \"soon\""), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nurl_env = \"X\"\nmin_severity = \"fatal\"\n");
    assert!(e.contains("alert[0].min_severity = \"fatal\": not critical, error, warning or info"), "{e}");
    let e = err("[[alert]]\nname = \"x\"\n");
    assert!(e.starts_with("fleet.toml:6: alert[0].url_env = (missing)"), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nurl = \"https://h/SECRET\"\nurl_env = \"X\"\n");
    assert!(e.contains("only one of url and url_env") && !e.contains("SECRET"), "{e}");
    let e = err("[[alert]]\nname = \"x\"\nurl_env = \"X\"\n[[alert]]\nname = \"x\"\nurl_env = \"Y\"\n");
    assert!(e.contains("alert[1].name = \"x\": another alert already has this name"), "{e}");
    let e = server::config::parse("public_url = \"sundial\"\n", "fleet.toml").unwrap_err().to_string();
    assert!(e.starts_with("fleet.toml:1: public_url = \"sundial\": not a URL"), "{e}");

    // Defaults, and "0" for never.
    let text = "public_url = \"https://s.example/x/\"\n[[alert]]\nname = \"a\"\nurl_env = \"SUNDIAL_TEST_UNSET_HOOK\"\n\
                [[alert]]\nname = \"b\"\nurl = \"https://hooks.example/SECRET\"\nremind = \"0\"\nformat = \"slack\"\n";
    let c = server::config::parse(text, "fleet.toml").unwrap();
    assert_eq!(c.public_url.as_deref(), Some("https://s.example/x"));
    let a = &c.alerts[0];
    assert_eq!(
        (a.grace, a.remind, a.format),
        (Duration::from_secs(300), Some(Duration::from_secs(4 * 3600)), server::config::AlertFormat::Json)
    );
    assert_eq!(a.min_severity, sundial_engine::triage::ProblemSeverity::Error);
    assert_eq!(c.alerts[1].remind, None);
    assert!(!format!("{:?}", c.alerts[1]).contains("SECRET"));
    // An unset variable is named with the alert and its line, at start.
    let e = server::config::resolve_alert_url(a).unwrap_err().to_string();
    assert!(e.contains("fleet.toml:2") && e.contains("SUNDIAL_TEST_UNSET_HOOK") && e.contains("not set"), "{e}");
}
