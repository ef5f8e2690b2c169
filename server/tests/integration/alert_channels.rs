//! The alert channels over real receivers on loopback, with the fleet of `alerts.rs` (the
//! worker's `ETL - Nightly Load` missed today's 13:00 run, a report crashed, an instance gone):
//!
//! - PagerDuty (Events API v2) and Microsoft Teams (a Workflows webhook's Adaptive Card) posted
//!   to the receiver of `alerts.rs`, each body validated against the published JSON Schema:
//!   PagerDuty's (`tests/data/pagerduty-events-v2.schema.json`, from its OpenAPI document; see
//!   the file's `$comment`) and the Adaptive Card schema Microsoft ships in the npm package
//!   `adaptivecards-designer` (`.tools/schemas/adaptive-card.json`, written by
//!   `.ci/install-deps`). Each schema is shown to refuse a broken body too.
//! - Email to a real SMTP relay: aiosmtpd (`tests/data/smtp_server.py`, from `.venv`) with a
//!   certificate made here (rcgen), STARTTLS on one port and implicit TLS on another, AUTH on
//!   both; Python's `email` package parses each message (policy.strict: any defect fails).
use crate::alerts::{Logs, QUICK, Received, at, fleet, next, reads_after_now, receiver, start, status_until};
use crate::metrics::{NIGHTLY, nightly_ran, write_worker};
use crate::support::web;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use server::alerts::Alerter;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn schema(path: &Path) -> jsonschema::Validator {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (run .ci/install-deps: it writes the published schemas)", path.display()));
    let v: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&v).unwrap_or_else(|e| panic!("{}: not a schema: {e}", path.display()))
}

/// The published Adaptive Card schema checks only the first element of a list of elements (its
/// `CardElements` is a one-item tuple, `additionalItems: true`): this checks every element of a
/// card, containers' items too, against the same schema's `CardElements`, one at a time.
struct Card {
    card: jsonschema::Validator,
    element: jsonschema::Validator,
}

impl Card {
    fn load() -> Card {
        let path = repo().join(".tools/schemas/adaptive-card.json");
        let card = schema(&path);
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let definitions = v["definitions"].take();
        let element = serde_json::json!({
            "$schema": "http://json-schema.org/draft-06/schema#",
            "$ref": "#/definitions/CardElements",
            "definitions": definitions,
        });
        Card { card, element: jsonschema::validator_for(&element).expect("CardElements") }
    }

    fn is_valid(&self, card: &Value) -> bool {
        let mut elements = Vec::new();
        fn walk<'a>(list: &'a Value, out: &mut Vec<&'a Value>) {
            for e in list.as_array().into_iter().flatten() {
                out.push(e);
                walk(&e["items"], out);
            }
        }
        walk(&card["body"], &mut elements);
        self.card.is_valid(card) && elements.iter().all(|e| self.element.is_valid(&Value::Array(vec![(*e).clone()])))
    }

    fn check(&self, card: &Value, what: &str) {
        valid(&self.card, card, what);
        let mut elements = Vec::new();
        fn walk<'a>(list: &'a Value, out: &mut Vec<&'a Value>) {
            for e in list.as_array().into_iter().flatten() {
                out.push(e);
                walk(&e["items"], out);
            }
        }
        walk(&card["body"], &mut elements);
        assert!(elements.len() >= 4, "{what}: a title and a container of three");
        for e in elements {
            valid(&self.element, &Value::Array(vec![e.clone()]), what);
        }
    }
}

fn valid(v: &jsonschema::Validator, body: &Value, what: &str) {
    let errors: Vec<String> = v.iter_errors(body).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{what} breaks its schema: {errors:#?}\n{body:#}");
}

/// Acknowledge a problem's episode as a user does (the triage page's form).
async fn acknowledge(state: &server::http::AppState, key: &str, episode_ms: i64) {
    let form = format!("key={}&episode_ms={episode_ms}&note=on+it&back=/triage", crate::support::enc(key));
    let req = Request::post("/triage/ack")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form))
        .unwrap();
    let a = web::send(state.clone(), req).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    let to = a.headers.get(header::LOCATION).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    assert!(!to.contains("ack_error"), "acknowledged: {to}");
}

#[tokio::test]
async fn pagerduty_and_teams_bodies_follow_the_published_schemas_and_an_acknowledgement_resolves_no_incident() {
    let pd_schema = schema(&repo().join("server/tests/data/pagerduty-events-v2.schema.json"));
    let card_schema = Card::load();
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let (url, mut rx) = receiver(0).await;
    const KEY: &str = "R0UTING-KEY-0123456789abcdef-SECRET";
    let alerts = format!(
        "[[alert]]\nname = \"pager\"\nformat = \"pagerduty\"\nurl = \"{url}/pd\"\nrouting_key = \"{KEY}\"\n\
         [[alert]]\nname = \"teams\"\nformat = \"teams\"\nurl = \"{url}/teams\"\nremind = \"2m\"\n"
    );
    let config = fleet(dir.path(), &alerts);
    assert!(!format!("{config:?}").contains(KEY), "the routing key prints as ***");
    let backend = start(&config).await;
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK).await.unwrap().unwrap();

    let queued = alerter.tick(at(6)).await;
    assert_eq!(queued.len(), 6, "{queued:?}");
    let mut pd: BTreeMap<String, Value> = BTreeMap::new();
    let mut cards: BTreeMap<String, Value> = BTreeMap::new();
    for _ in 0..6 {
        let Received { path, body, .. } = next(&mut rx).await;
        match path.as_str() {
            "/hook/pd" => {
                valid(&pd_schema, &body, "a PagerDuty trigger");
                pd.insert(body["payload"]["class"].as_str().unwrap().to_owned(), body);
            }
            "/hook/teams" => {
                assert_eq!(body["type"], "message");
                let a = &body["attachments"][0];
                assert_eq!(a["contentType"], "application/vnd.microsoft.card.adaptive");
                card_schema.check(&a["content"], "a Teams card");
                let title = a["content"]["body"][0]["text"].as_str().unwrap().to_owned();
                cards.insert(title, body);
            }
            other => panic!("{other}"),
        }
    }
    // PagerDuty: one trigger per episode, each its own dedup_key, the key added on the way.
    assert_eq!(pd.keys().collect::<Vec<_>>(), ["failed", "missed", "unreachable"]);
    let missed = &pd["missed"];
    assert_eq!(missed["event_action"], "trigger");
    assert_eq!(missed["routing_key"], KEY);
    let p = &missed["payload"];
    assert_eq!((p["severity"].as_str(), p["source"].as_str()), (Some("error"), Some("worker")));
    assert_eq!(p["component"], NIGHTLY);
    assert_eq!(
        p["summary"].as_str().unwrap(),
        format!("[MISSED] worker / {NIGHTLY}: {}", p["custom_details"]["evidence"].as_str().unwrap())
    );
    let link = missed["links"][0]["href"].as_str().unwrap();
    assert!(
        link.starts_with("https://sundial.example/jobs/") && link.ends_with("?at=2026-03-07T13:00:00Z&instance=worker"),
        "{link}"
    );
    assert_eq!(missed["links"][1]["href"], "https://sundial.example/triage");
    assert_eq!(pd["unreachable"]["payload"]["severity"], "critical");
    let keys: std::collections::BTreeSet<&str> = pd.values().map(|v| v["dedup_key"].as_str().unwrap()).collect();
    assert_eq!(keys.len(), 3);
    // Teams: the title, the facts, the evidence and the links.
    let title = server::alerts::payload::teams_text(&format!("[MISSED] worker / {NIGHTLY}"));
    let card = &cards[&title]["attachments"][0]["content"];
    let facts: Vec<(&str, &str)> = card["body"][1]["items"][1]["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["title"].as_str().unwrap(), f["value"].as_str().unwrap()))
        .collect();
    assert_eq!(facts[0], ("Instance", "worker"));
    assert_eq!(facts[1], ("Job", "ETL \\- Nightly Load"), "Markdown's punctuation escaped");
    assert_eq!(facts[3], ("Severity", "error"));
    assert_eq!(facts[4], ("Count", "1 run missed"));
    assert_eq!(card["actions"][0]["type"], "Action.OpenUrl");
    assert_eq!(card["actions"][0]["url"].as_str(), Some(link));
    assert_eq!(card["actions"][1]["url"], "https://sundial.example/triage");

    // Each schema refuses a broken body: these checks can fail.
    let mut broken = missed.clone();
    broken["payload"]["severity"] = "fatal".into();
    assert!(!pd_schema.is_valid(&broken), "an unknown severity");
    let mut broken = missed.clone();
    broken.as_object_mut().unwrap().remove("payload");
    assert!(!pd_schema.is_valid(&broken), "a trigger without a payload");
    let mut broken = missed.clone();
    broken["payload"]["summary"] = "x".repeat(1025).into();
    assert!(!pd_schema.is_valid(&broken), "a summary over 1024 characters");
    let mut broken = card.clone();
    broken["body"][1]["items"][1].as_object_mut().unwrap().remove("facts");
    assert!(!card_schema.is_valid(&broken), "a FactSet without facts");
    let mut broken = card.clone();
    broken["actions"][0].as_object_mut().unwrap().remove("url");
    assert!(!card_schema.is_valid(&broken), "an Action.OpenUrl without its url");

    // Someone acknowledges the missed run in Sundial: PagerDuty hears nothing (the incident is
    // PagerDuty's to acknowledge); Teams' reminder leaves it out.
    let state = web::state(backend.clone());
    let (key, episode_ms) = {
        let fleet = backend.problems_current().await;
        let j = fleet.judged.iter().find(|j| j.problem.kind == sundial_engine::triage::ProblemKind::Missed).unwrap();
        (server::alerts::open(j, false, "", at(8)).key, j.first_seen.timestamp_millis())
    };
    let first_seen = chrono::DateTime::parse_from_rfc3339(p["custom_details"]["first_seen"].as_str().unwrap()).unwrap();
    assert_eq!(first_seen.timestamp_millis(), episode_ms, "the incident's episode is triage's");
    acknowledge(&state, &key, episode_ms).await;
    let queued = alerter.tick(at(8)).await;
    let subjects: Vec<(&str, &str)> = queued.iter().map(|(t, s)| (t.as_str(), s.as_str())).collect();
    assert_eq!(subjects, [("teams", "[STILL OPEN] 2 problems: DOWN ×1, FAILED ×1")], "no PagerDuty event");
    let r = next(&mut rx).await;
    assert_eq!(r.path, "/hook/teams");
    card_schema.check(&r.body["attachments"][0]["content"], "a Teams reminder");

    // The run is written: the episode ends, and PagerDuty's incident is resolved by its key.
    nightly_ran(&dir.path().join("worker.sqlite")).await;
    reads_after_now(&backend, "worker").await;
    let queued = alerter.tick(at(9)).await;
    assert_eq!(queued.len(), 2, "{queued:?}");
    let mut resolved = BTreeMap::new();
    for _ in 0..2 {
        let r = next(&mut rx).await;
        resolved.insert(r.path.clone(), r.body);
    }
    let resolve = &resolved["/hook/pd"];
    valid(&pd_schema, resolve, "a PagerDuty resolve");
    assert_eq!(resolve["event_action"], "resolve");
    assert_eq!(resolve["dedup_key"], missed["dedup_key"]);
    assert_eq!(resolve["routing_key"], KEY);
    card_schema.check(&resolved["/hook/teams"]["attachments"][0]["content"], "a Teams recovery");

    // Sizes, for the record.
    eprintln!(
        "bytes: PagerDuty trigger {}, resolve {}; Teams card {}",
        missed.to_string().len(),
        resolve.to_string().len(),
        cards.values().next().unwrap().to_string().len()
    );
    assert!(rx.try_recv().is_err(), "no other request");
}

/// The relay's events, a JSON line each.
struct Relay {
    _child: tokio::process::Child,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    /// AUTH attempts seen (ok or not), with the messages received.
    auths: Vec<Value>,
}

impl Relay {
    async fn event(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(60), self.lines.next_line())
            .await
            .expect("the relay says something within 60 s")
            .expect("its output")
            .expect("the relay runs");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The next message received (AUTH attempts before it are kept).
    async fn message(&mut self) -> Value {
        loop {
            let mut e = self.event().await;
            if let Some(a) = e.get("auth") {
                self.auths.push(a.clone());
                continue;
            }
            return e["message"].take();
        }
    }
}

#[tokio::test]
async fn email_over_starttls_and_implicit_tls_with_auth_is_one_thread_per_episode_and_keeps_the_password() {
    let (logs, _logging) = Logs::capture();

    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    // The relay's certificate, for loopback, trusted through ca_file only.
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
    let (cert_pem, key_pem) = (dir.path().join("relay.pem"), dir.path().join("relay.key"));
    std::fs::write(&cert_pem, cert.cert.pem()).unwrap();
    std::fs::write(&key_pem, cert.signing_key.serialize_pem()).unwrap();
    const USER: &str = "sundial";
    const PASSWORD: &str = "S3cret-P@ss/w0rd:42";
    const ENCODED: &str = "S3cret-P%40ss%2Fw0rd%3A42";
    const WRONG: &str = "WRONG-PASSWORD-7f3a";
    let python = repo().join(".venv/bin/python3");
    let mut child = tokio::process::Command::new(if python.exists() { python } else { "python3".into() })
        .arg(repo().join("server/tests/data/smtp_server.py"))
        .args([cert_pem.as_os_str(), key_pem.as_os_str()])
        .args([USER, PASSWORD])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python3 with aiosmtpd: run .ci/install-deps");
    let stdout = child.stdout.take().unwrap();
    let mut relay = Relay { _child: child, lines: BufReader::new(stdout).lines(), auths: Vec::new() };
    let ready = relay.event().await;
    let (starttls, tls) = (ready["ready"]["starttls"].as_u64().unwrap(), ready["ready"]["tls"].as_u64().unwrap());

    let ca = cert_pem.to_string_lossy();
    let alerts = format!(
        "[[alert]]\nname = \"mail-starttls\"\nformat = \"email\"\nurl = \"smtp://{USER}:{ENCODED}@127.0.0.1:{starttls}?tls=required\"\n\
         from = \"Sundial <sundial@corp.example>\"\nto = [\"dba@corp.example\", \"Oncall <oncall@corp.example>\"]\nca_file = {ca:?}\n\
         [[alert]]\nname = \"mail-tls\"\nformat = \"email\"\nurl = \"smtps://{USER}:{ENCODED}@127.0.0.1:{tls}\"\n\
         from = \"sundial@corp.example\"\nto = [\"dba@corp.example\"]\nca_file = {ca:?}\nkinds = [\"missed\"]\n\
         [[alert]]\nname = \"mail-wrong\"\nformat = \"email\"\nurl = \"smtps://{USER}:{WRONG}@127.0.0.1:{tls}\"\n\
         from = \"sundial@corp.example\"\nto = [\"dba@corp.example\"]\nca_file = {ca:?}\nkinds = [\"missed\"]\n"
    );
    let config = fleet(dir.path(), &alerts);
    let shown = format!("{config:?}");
    assert!(!shown.contains(PASSWORD) && !shown.contains(ENCODED) && !shown.contains(WRONG), "{shown}");
    let backend = start(&config).await;
    let started = std::time::Instant::now();
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK).await.unwrap().unwrap();
    let status: BTreeMap<String, _> = alerter.status().into_iter().collect();

    // STARTTLS: the three problems; implicit TLS: the missed run only (kinds); the wrong
    // password: refused, retried, its error without the password.
    let queued = alerter.tick(at(6)).await;
    assert_eq!(queued.len(), 5, "{queued:?}");
    let mut alerts_seen: BTreeMap<(String, String), Value> = BTreeMap::new();
    for _ in 0..4 {
        let m = relay.message().await;
        let subject = m["headers"]["Subject"].as_str().unwrap().to_owned();
        alerts_seen.insert((m["server"].as_str().unwrap().to_owned(), subject), m);
    }
    let missed_subject = format!("[MISSED] worker / {NIGHTLY}");
    for ((server, subject), m) in &alerts_seen {
        assert_eq!(m["strict"], "ok", "{server} {subject}: RFC 5322 without defects");
        assert_eq!(m["defects"], serde_json::json!([]), "{server} {subject}");
        assert_eq!(m["auth"], USER, "{server}: AUTH was used");
        assert_eq!(m["content_type"], "multipart/alternative");
        assert!(m["headers"]["Message-ID"].as_str().unwrap().ends_with("@corp.example>"));
        assert!(m["headers"].get("In-Reply-To").is_none());
        assert!(!m["raw"].as_str().unwrap().contains(PASSWORD));
    }
    let names: Vec<(&str, &str)> = alerts_seen.keys().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(
        names,
        [
            ("starttls", "[DOWN] GONE"),
            ("starttls", "[FAILED] worker / Report \"daily\""),
            ("starttls", missed_subject.as_str()),
            ("tls", missed_subject.as_str())
        ]
    );
    let first = &alerts_seen[&("starttls".to_owned(), missed_subject.clone())];
    assert_eq!(first["rcpt_tos"], serde_json::json!(["dba@corp.example", "oncall@corp.example"]));
    assert_eq!(first["headers"]["To"], "dba@corp.example, Oncall <oncall@corp.example>");
    let text = first["text"].as_str().unwrap();
    let html = first["html"].as_str().unwrap();
    assert!(
        text.contains("2026-03-07 13:00 UTC missed") && text.contains("?at=2026-03-07T13:00:00Z&instance=worker"),
        "{text}"
    );
    assert!(
        html.contains("2026-03-07 13:00 UTC missed") && html.contains("?at=2026-03-07T13:00:00Z&amp;instance=worker"),
        "{html}"
    );
    assert!(html.contains("https://sundial.example/triage"), "{html}");

    // The wrong password: refused by the relay, retried; no error and no log line holds it.
    let mut wrong = status["mail-wrong"].clone();
    let s = status_until(&mut wrong, |s| s.failures_in_a_row >= 1).await;
    // (aiosmtpd answers a refused AUTH late or not at all: the error is the relay's or Sundial's
    // deadline, whichever comes first.)
    let error = s.last_error.clone().unwrap();
    eprintln!("the wrong password's error: {error}");
    assert!(!error.contains(WRONG) && !error.contains(PASSWORD), "{error}");

    // The run is written: one recovery per target, in the alert's thread.
    nightly_ran(&dir.path().join("worker.sqlite")).await;
    reads_after_now(&backend, "worker").await;
    let queued = alerter.tick(at(9)).await;
    assert_eq!(queued.len(), 3, "{queued:?}");
    for _ in 0..2 {
        let m = relay.message().await;
        let server = m["server"].as_str().unwrap().to_owned();
        let alert = &alerts_seen[&(server.clone(), missed_subject.clone())];
        let id = alert["headers"]["Message-ID"].as_str().unwrap();
        assert_eq!(m["strict"], "ok");
        assert_eq!(m["headers"]["Subject"], format!("[RESOLVED MISSED] worker / {NIGHTLY}"));
        assert_eq!(m["headers"]["In-Reply-To"], id, "{server}: a reply to the alert");
        assert_eq!(m["headers"]["References"], id, "{server}");
        assert_ne!(m["headers"]["Message-ID"], id);
        assert!(m["text"].as_str().unwrap().contains("resolved (1 run missed)"));
    }
    let took = started.elapsed();
    let failed_auths = relay.auths.iter().filter(|a| a["ok"] == false).count();
    assert!(relay.auths.iter().any(|a| a["ok"] == true), "{:?}", relay.auths);
    assert!(failed_auths >= 1, "the wrong password was tried: {:?}", relay.auths);
    for (_, s) in alerter.status() {
        let s = s.borrow().clone();
        assert!(!format!("{s:?}").contains(WRONG) && !format!("{s:?}").contains(PASSWORD), "{s:?}");
    }
    let logged = logs.text();
    for secret in [PASSWORD, ENCODED, WRONG] {
        assert!(!logged.contains(secret), "the log holds a password:\n{logged}");
    }
    eprintln!(
        "email: {} alerts and 2 recoveries relayed in {took:?}; a message is {} bytes",
        alerts_seen.len(),
        first["raw"].as_str().unwrap().len()
    );
}

/// The README's example of every format parses as it says (docs kept true).
#[test]
fn the_readmes_alert_examples_parse() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme.find("public_url = \"https://sundial.corp\"").expect("the alerts' example");
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let text = format!(
        "{block}\n[[instance]]\nname = \"a\"\nkind = \"sqlite_demo\"\npath = \"/x\"\ntags = {{ env = \"prod\" }}\n"
    );
    let c = server::config::parse(&text, "README.md").unwrap_or_else(|e| panic!("{e}"));
    let formats: Vec<&str> = c.alerts.iter().map(|a| a.format.key()).collect();
    assert_eq!(formats, ["slack", "email", "pagerduty", "teams"]);
    assert_eq!(c.alerts[2].remind, None, "PagerDuty: no reminders");
    let route = server::alerts::route(&c.alerts[0], &c);
    assert_eq!(route.instances, Some(["a".to_owned()].into()));
    assert_eq!(route.kinds.map(|k| k.len()), Some(3));
    assert!(!c.alerts[0].route.changes, "changes are never told by default");
    let teams = server::alerts::route(&c.alerts[3], &c);
    assert!(c.alerts[3].route.changes && teams.kinds == Some(Default::default()), "changes only");
}
