//! Names and texts that other people write, planted in every source kind's tables and looked
//! for everywhere Sundial shows them.
//!
//! The demo fleet is written at a fixed "now", then every job or event name, step name,
//! schedule, category and owner name, run message and other free text of each kind's SQLite file is
//! changed to hostile text: markup that would add an element (`<h1 id=pwned-N>`), leave the
//! `<title>` or a `<textarea>` (`</title><meta http-equiv=refresh …>`, `</textarea>`), break
//! out of an attribute (`"><img src=x onerror=…>`), `</script>`, entities that must stay
//! literal, quotes, line breaks, the right-to-left override, control characters and one name
//! of 10 KB. The fleet is served as of that "now" and every page (the fleet, each instance's
//! jobs and timeline, every job's page, the log, triage, the simulator), the CSV export, the
//! JSON API, `/metrics` and the alerts' Slack and JSON bodies are read back:
//!
//! - every HTML answer is parsed by an HTML5 parser (html5ever, through `scraper`), as a
//!   browser would: no element or attribute the text could have introduced exists (no id
//!   `pwned…`, no `on…` attribute, no `<meta http-equiv>`, no `<img src=x>`, no script without
//!   the answer's nonce), and the text is shown, not dropped: a job's page has its name in its
//!   `<title>` and its body as the table holds it, each instance's jobs page every name;
//! - the simulator's `<textarea>` holds the row given in the URL, as given;
//! - JSON parses and holds the names exactly; `/metrics`'s label values, unescaped as the
//!   text format says, are the names; the CSV parses to the names (a formula-like cell after
//!   its `'`, as `log_csv` writes it); Slack's mrkdwn has no `<…>` but Sundial's own links.
//!
//! Every failure is collected, then reported at once (what, where, the offending markup).
use crate::support::web;
use crate::support::{enc, t};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::Duration;
use http_body_util::BodyExt;
use scraper::{ElementRef, Html, Node};
use serde_json::Value;
use server::demo;
use sqlx::Connection;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tower::ServiceExt;

const NOW: &str = "2026-11-22T12:00:00Z";

/// Where alerts' links point.
const PUBLIC_URL: &str = "https://sundial.test";

/// The free text planted after every run message, step command and error text.
const MESSAGE: &str = " <h1 id=pwned-msg>msg</h1></td></tr></table></textarea></title></script><img src=x id=pwned-msg-img onerror=alert(1)> \"double\" 'single' &amp; &lt;b&gt; line\nbreak\r\nCRLF \u{202E}rtl\u{202C} bell\u{0007} esc\u{001B}[31m";

/// The `n`-th hostile name: each kind of trouble in turn, `n` making it unique (its ids
/// `pwned-n…`). [`LONG`] is the one of 10 KB.
fn hostile(n: usize) -> String {
    if n == LONG {
        return format!("<h2 id=pwned-{n}>{}</h2> {}", "W".repeat(5_000), "<i>&amp;</i> ".repeat(420));
    }
    match n % 12 {
        0 => format!("<h1 id=pwned-{n}>Nightly</h1> & more"),
        1 => {
            format!("</title><meta http-equiv=\"refresh\" content=\"0;url=http://evil.invalid/{n}\"><h1 id=pwned-{n}>")
        }
        2 => format!("\"><img src=x id=pwned-{n} onerror=alert({n})>"),
        3 => format!("'><svg id=pwned-{n} onload=alert({n})>'"),
        4 => format!("</textarea><b id=pwned-{n}>textarea</b>"),
        5 => format!("</script><script id=pwned-{n}>alert({n})</script>"),
        6 => format!("</style></noscript><i id=pwned-{n}>style</i> <!-- comment --> <![CDATA[ x ]]>"),
        7 => format!("line one\nline two\r\nline three <u id=pwned-{n}>"),
        8 => format!("\u{202E}lamron txet <s id=pwned-{n}>\u{202C} RTL \u{200F}mark"),
        9 => format!("bell\u{0007} esc\u{001B}[31m back\u{0008} del\u{007F} <em id=pwned-{n}>"),
        10 => format!("&amp; &lt;b&gt; &#60;b id=pwned-{n}&#62; {{{{literal}}}} \\ \\\" `tick`"),
        _ => format!("=HYPERLINK(\"http://evil.invalid/{n}\",\"<a id=pwned-{n}>open</a>\")"),
    }
}

/// The index of the 10 KB name.
const LONG: usize = 3;

/// Hands out hostile names, each once.
#[derive(Default)]
struct Planter {
    n: usize,
    /// Every name planted, by instance.
    names: BTreeMap<String, Vec<String>>,
}

impl Planter {
    fn next(&mut self) -> String {
        let s = hostile(self.n);
        self.n += 1;
        s
    }

    /// Give every row of `table` (by `key`) a name of its own in `column`: what was there,
    /// and the name.
    async fn rename(
        &mut self,
        c: &mut sqlx::SqliteConnection,
        instance: Option<&str>,
        table: &str,
        key: &str,
        column: &str,
    ) -> Vec<(String, String)> {
        let keys: Vec<(String, Option<String>)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT DISTINCT CAST({key} AS TEXT), CAST({column} AS TEXT) FROM {table} ORDER BY 1"
        )))
        .fetch_all(&mut *c)
        .await
        .unwrap_or_else(|e| panic!("{table}: {e}"));
        let mut out = Vec::new();
        for (k, old) in keys {
            let name = self.next();
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "UPDATE {table} SET {column} = ?1 WHERE CAST({key} AS TEXT) = ?2"
            )))
            .bind(&name)
            .bind(&k)
            .execute(&mut *c)
            .await
            .unwrap_or_else(|e| panic!("{table}.{column}: {e}"));
            if let Some(i) = instance {
                self.names.entry(i.to_owned()).or_default().push(name.clone());
            }
            out.push((old.unwrap_or_default(), name));
        }
        out
    }
}

/// Append [`MESSAGE`] to `column` of every row of `table`.
async fn append(c: &mut sqlx::SqliteConnection, table: &str, column: &str) {
    sqlx::query(sqlx::AssertSqlSafe(format!("UPDATE {table} SET {column} = COALESCE({column}, '') || ?1")))
        .bind(MESSAGE)
        .execute(&mut *c)
        .await
        .unwrap_or_else(|e| panic!("{table}.{column}: {e}"));
}

async fn open(path: &Path) -> sqlx::SqliteConnection {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
    sqlx::SqliteConnection::connect_with(&options).await.unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The demo fleet written at [`NOW`] into `dir`, every name and text of every kind made
/// hostile; its fleet file (the worker's configured jobs renamed as its table is), and the
/// names planted by instance.
async fn hostile_fleet(dir: &Path) -> (String, BTreeMap<String, Vec<String>>) {
    let path = dir.join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    let mut p = Planter::default();
    let mut toml = demo::fleet_toml(&path);
    let file = |name: &str| demo::file_of(&path, name);

    // SQL Server Agent's msdb (SQLPROD01 and SQLEU01): jobs, descriptions, categories,
    // schedules, steps (in the history too), every history row's message.
    for instance in [demo::INSTANCE, demo::eu::INSTANCE] {
        let mut c = open(&file(instance)).await;
        p.rename(&mut c, Some(instance), "sysjobs", "job_id", "name").await;
        append(&mut c, "sysjobs", "description").await;
        p.rename(&mut c, None, "syscategories", "category_id", "name").await;
        // The owners' logins (the jobs list's Owner column and its filter's options).
        p.rename(&mut c, None, "server_principals", "principal_id", "name").await;
        p.rename(&mut c, None, "sysschedules", "schedule_id", "name").await;
        p.rename(&mut c, None, "sysjobsteps", "rowid", "step_name").await;
        sqlx::query(
            "UPDATE sysjobhistory SET step_name = (SELECT s.step_name FROM sysjobsteps s \
             WHERE s.job_id = sysjobhistory.job_id AND s.step_id = sysjobhistory.step_id) \
             WHERE step_id > 0 AND EXISTS (SELECT 1 FROM sysjobsteps s \
             WHERE s.job_id = sysjobhistory.job_id AND s.step_id = sysjobhistory.step_id)",
        )
        .execute(&mut c)
        .await
        .expect("the history's step names");
        append(&mut c, "sysjobhistory", "message").await;
    }

    // pg_cron: job names and commands, run messages; one schedule that is not cron at all
    // (its diagnostic names the value).
    let mut c = open(&file(demo::PG_CRON_INSTANCE)).await;
    p.rename(&mut c, Some(demo::PG_CRON_INSTANCE), "job", "jobid", "jobname").await;
    append(&mut c, "job", "command").await;
    append(&mut c, "job_run_details", "command").await;
    append(&mut c, "job_run_details", "return_message").await;
    sqlx::query(
        "UPDATE job SET schedule = '<b id=pwned-schedule>\"every\" day</b>' WHERE jobid = (SELECT MAX(jobid) FROM job)",
    )
    .execute(&mut c)
    .await
    .expect("a hostile schedule");

    // MariaDB's events: names, definers, bodies.
    let mut c = open(&file(demo::EVENTS_INSTANCE)).await;
    p.rename(&mut c, Some(demo::EVENTS_INSTANCE), "EVENTS", "rowid", "EVENT_NAME").await;
    append(&mut c, "EVENTS", "EVENT_DEFINITION").await;
    append(&mut c, "EVENTS", "DEFINER").await;

    // The worker's jobactivity: its names, and the fleet file's jobs of the same names.
    let mut c = open(&file(demo::JOBACTIVITY_INSTANCE)).await;
    let q = |s: &str| toml::Value::String(s.to_owned()).to_string();
    for (old, new) in p.rename(&mut c, Some(demo::JOBACTIVITY_INSTANCE), "jobactivity", "job_name", "job_name").await {
        assert!(toml.contains(&q(&old)), "{old} is configured");
        toml = toml.replace(&q(&old), &q(&new));
    }

    // The MySQL runner's job table: names, procedures.
    let mut c = open(&file(demo::JOB_TABLE_INSTANCE)).await;
    p.rename(&mut c, Some(demo::JOB_TABLE_INSTANCE), "job", "job_id", "job_name").await;
    p.rename(&mut c, None, "job", "job_id", "job_procedure_name").await;

    // Service Broker: jobs, steps, their SQL, the errors.
    let mut c = open(&file(demo::SERVICE_BROKER_INSTANCE)).await;
    p.rename(&mut c, Some(demo::SERVICE_BROKER_INSTANCE), "ScheduledJobs", "ID", "JobName").await;
    p.rename(&mut c, None, "ScheduledJobSteps", "ID", "StepName").await;
    append(&mut c, "ScheduledJobSteps", "SqlToRun").await;
    append(&mut c, "SchedulingErrors", "ErrorMessage").await;

    // Primentra: entities, the log's messages.
    let mut c = open(&file(demo::PRIMENTRA_INSTANCE)).await;
    p.rename(&mut c, Some(demo::PRIMENTRA_INSTANCE), "Entities", "Id", "Name").await;
    append(&mut c, "SchedulerLog", "Message").await;

    // pgAgent: jobs, classes, steps, schedules, the steps' output.
    let mut c = open(&file(demo::PGAGENT_INSTANCE)).await;
    p.rename(&mut c, Some(demo::PGAGENT_INSTANCE), "pga_job", "jobid", "jobname").await;
    p.rename(&mut c, None, "pga_jobclass", "jclid", "jclname").await;
    p.rename(&mut c, None, "pga_jobstep", "jstid", "jstname").await;
    p.rename(&mut c, None, "pga_schedule", "jscid", "jscname").await;
    append(&mut c, "pga_jobsteplog", "jsloutput").await;

    assert!(p.n > LONG, "the 10 KB name is planted");
    (toml, p.names)
}

/// Text as an HTML parser gives it back: line breaks normalised (CR LF and CR to LF), NUL
/// dropped (replaced or ignored by context).
fn norm(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n").replace(['\0', '\u{FFFD}'], "")
}

/// Every text node under `el`, in order.
fn text_of(el: ElementRef) -> String {
    el.descendants()
        .filter_map(|n| match n.value() {
            Node::Text(t) => Some(&**t),
            _ => None,
        })
        .collect()
}

/// `s` cut for a failure message.
fn cut(s: &str) -> String {
    let mut out: String = s.chars().take(300).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// The failures found, reported together at the end.
#[derive(Default)]
struct Findings {
    found: Vec<String>,
    /// HTML answers parsed, alert bodies read.
    pages: usize,
    alerts: usize,
}

impl Findings {
    fn add(&mut self, what: String) {
        eprintln!("FOUND: {what}");
        self.found.push(what);
    }

    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.add(what());
        }
    }
}

/// Parse `html` as a browser would and look for anything the planted text could have added.
fn parse(f: &mut Findings, uri: &str, html: &str) -> Html {
    f.pages += 1;
    let doc = Html::parse_document(html);
    for el in doc.root_element().descendants().filter_map(ElementRef::wrap) {
        let e = el.value();
        let tag = || cut(&el.html());
        if let Some(id) = e.id() {
            f.check(!id.starts_with("pwned"), || format!("{uri}: an element the text added: {}", tag()));
        }
        for (name, value) in e.attrs() {
            f.check(!name.to_ascii_lowercase().starts_with("on"), || {
                format!("{uri}: an event handler attribute {name}={value:?}: {}", tag())
            });
        }
        match e.name() {
            "meta" => f.check(e.attr("http-equiv").is_none(), || format!("{uri}: a <meta http-equiv>: {}", tag())),
            "img" => f.check(e.attr("src") != Some("x"), || format!("{uri}: an <img src=x>: {}", tag())),
            "base" => f.add(format!("{uri}: a <base>: {}", tag())),
            // Sundial's scripts carry the answer's nonce; one without it came from the text.
            "script" => f.check(e.attr("nonce").is_some(), || format!("{uri}: a script without the nonce: {}", tag())),
            _ => {}
        }
    }
    let titles: Vec<ElementRef> = doc.select(&sel("title")).filter(|t| !in_svg(*t)).collect();
    f.check(titles.len() == 1, || format!("{uri}: {} <title>s, not one", titles.len()));
    doc
}

/// Within an `<svg>` (whose `<title>`s are tooltips, not the page's).
fn in_svg(el: ElementRef) -> bool {
    el.ancestors().filter_map(ElementRef::wrap).any(|a| a.value().name() == "svg")
}

fn sel(s: &str) -> scraper::Selector {
    scraper::Selector::parse(s).unwrap_or_else(|e| panic!("{s}: {e:?}"))
}

/// The page's `<title>`, as the tab shows it (before whitespace is collapsed).
fn title(doc: &Html) -> String {
    doc.select(&sel("title")).find(|t| !in_svg(*t)).map(text_of).unwrap_or_default()
}

/// The text of the page's body.
fn body_text(doc: &Html) -> String {
    doc.select(&sel("body")).next().map(text_of).unwrap_or_default()
}

/// A job as the JSON API lists it.
#[derive(Clone, Debug)]
struct Job {
    instance: String,
    id: String,
    name: String,
}

/// The router over the fleet, and what it answers.
struct Server {
    router: axum::Router,
    /// JSON answers read.
    json: std::sync::atomic::AtomicUsize,
}

impl Server {
    async fn get(&self, uri: &str) -> (StatusCode, String) {
        let req = Request::get(uri).body(Body::empty()).expect("a request");
        let res = tokio::time::timeout(std::time::Duration::from_secs(60), self.router.clone().oneshot(req))
            .await
            .unwrap_or_else(|_| panic!("no answer to {} in 60 s", cut(uri)))
            .expect("the router answers");
        let status = res.status();
        let body = res.into_body().collect().await.expect("a body").to_bytes();
        (status, String::from_utf8(body.to_vec()).unwrap_or_else(|e| panic!("{}: not UTF-8: {e}", cut(uri))))
    }

    /// A page that must answer 200, parsed and checked.
    async fn page(&self, f: &mut Findings, uri: &str) -> Html {
        let (status, html) = self.get(uri).await;
        f.check(status == StatusCode::OK, || format!("{}: {status}", cut(uri)));
        parse(f, &cut(uri), &html)
    }

    /// `GET uri`: its status and `Location`.
    async fn location(&self, uri: &str) -> (StatusCode, String) {
        let req = Request::get(uri).body(Body::empty()).expect("a request");
        let res = self.router.clone().oneshot(req).await.expect("the router answers");
        let to =
            res.headers().get(axum::http::header::LOCATION).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        (res.status(), to.unwrap_or_default())
    }

    async fn json(&self, uri: &str) -> Value {
        self.json.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (status, body) = self.get(uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {}", cut(&body));
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {}", cut(&body)))
    }
}

/// Every string in `v`.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Planted names are shown whole, inside what the source makes of them (`shop.` + an event).
fn planted_in<'a>(name: &str, planted: &'a [String]) -> Option<&'a String> {
    planted.iter().find(|p| name.contains(p.as_str()))
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_names_and_texts_are_shown_as_text_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (toml, planted) = hostile_fleet(dir.path()).await;
    let fleet = server::config::parse(&toml, "fleet.toml").unwrap_or_else(|e| panic!("{e}"));
    let backend = server::fleet::FleetBackend::start_at(&fleet, Some(t(NOW))).await.expect("the fleet starts");
    for i in &fleet.instances {
        let _ = sundial_model::ssr::Backend::snapshot(backend.as_ref(), &i.name).await;
    }
    let state = web::state(backend.clone());
    let server = Server { router: web::router(state).await, json: Default::default() };
    let _rendering = web::rendering().await;
    let mut f = Findings::default();
    let all: Vec<String> = planted.values().flatten().cloned().collect();

    // The JSON API: every instance, each readable one's jobs holding the planted names
    // exactly.
    let from = (t(NOW) - Duration::days(30)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let instances = server.json("/api/instances").await;
    let mut jobs: Vec<Job> = Vec::new();
    for i in instances["instances"].as_array().expect("instances") {
        let instance = i["name"].as_str().expect("a name").to_owned();
        if i["state"] != "Ok" {
            assert_eq!(instance, demo::UNREACHABLE, "{i}");
            continue;
        }
        let v = server.json(&format!("/api/instances/{}/jobs?from={from}&to={NOW}", enc(&instance))).await;
        let listed: Vec<Job> = v["jobs"]
            .as_array()
            .unwrap_or_else(|| panic!("{instance}: {v}"))
            .iter()
            .map(|j| Job {
                instance: instance.clone(),
                id: j["id"].as_str().expect("an id").to_owned(),
                name: j["name"].as_str().expect("a name").to_owned(),
            })
            .collect();
        let mine = planted.get(&instance).unwrap_or_else(|| panic!("{instance}: nothing planted"));
        for p in mine {
            f.check(listed.iter().any(|j| j.name.contains(p.as_str())), || {
                format!("/api/instances/{instance}/jobs: the planted name {:?} is not one of {:?}", cut(p), listed)
            });
        }
        jobs.extend(listed);
    }
    assert!(jobs.len() > 40, "the fleet's jobs: {}", jobs.len());
    let names: BTreeSet<&str> = jobs.iter().map(|j| j.name.as_str()).collect();

    // Each job's timeline in the API: its name exactly, and the planted messages whole.
    let mut messages = 0;
    for j in &jobs {
        let v = server
            .json(&format!("/api/instances/{}/jobs/{}/timeline?from={from}&to={NOW}", enc(&j.instance), enc(&j.id)))
            .await;
        let mut s = Vec::new();
        strings(&v, &mut s);
        f.check(s.contains(&j.name), || {
            format!("the timeline of {}/{}: its name is not in {}", j.instance, j.id, cut(&v.to_string()))
        });
        messages += s.iter().filter(|x| x.contains(MESSAGE)).count();
    }
    f.check(messages > 0, || "no run message of the API holds the planted text whole".into());
    for uri in ["/api/log?limit=1000", "/api/triage", "/api/jobs"] {
        let v = server.json(uri).await;
        let mut s = Vec::new();
        strings(&v, &mut s);
        f.check(s.iter().any(|x| planted_in(x, &all).is_some()), || {
            format!("{uri}: no planted name in {}", cut(&v.to_string()))
        });
    }

    // Pages: the fleet, each instance's jobs and timeline, the log, triage.
    for uri in ["/", "/fleet", "/log?days=30", "/timeline"] {
        let doc = server.page(&mut f, uri).await;
        let text = body_text(&doc);
        f.check(all.iter().any(|p| text.contains(&norm(p))), || format!("{uri}: no planted name is shown"));
    }
    // The log's failures: the runs' messages, whole.
    let uri = "/log?days=30&kind=failed";
    let doc = server.page(&mut f, uri).await;
    f.check(body_text(&doc).contains(&norm(MESSAGE)), || format!("{uri}: no line shows the planted message whole"));
    for i in demo::FLEET {
        let q = enc(i);
        let mine: Vec<&Job> = jobs.iter().filter(|j| j.instance == i).collect();
        for uri in [
            format!("/jobs?instance={q}&days=30"),
            format!("/timeline?instance={q}"),
            format!("/log?days=30&instance={q}"),
        ] {
            let (status, html) = server.get(&uri).await;
            let doc = parse(&mut f, &uri, &html);
            if i == demo::UNREACHABLE {
                continue;
            }
            f.check(status == StatusCode::OK, || format!("{uri}: {status}"));
            if !uri.starts_with("/log") {
                // Every job's name, whole.
                let text = body_text(&doc);
                for j in &mine {
                    f.check(text.contains(&norm(&j.name)), || {
                        format!("{uri}: the name {:?} is not shown whole", cut(&j.name))
                    });
                }
            }
        }
    }
    let triage = server.json("/api/triage").await;
    let doc = server.page(&mut f, "/triage").await;
    let text = body_text(&doc);
    for p in triage["problems"].as_array().expect("problems") {
        if let Some(job) = p["job"].as_str() {
            f.check(text.contains(&norm(job)), || {
                format!("/triage: the problem's job {:?} is not shown whole", cut(job))
            });
        }
    }

    // Every job's page: its name in the title and the page, whole.
    for j in &jobs {
        let uri = format!("/jobs/{}?instance={}", enc(&j.id), enc(&j.instance));
        let doc = server.page(&mut f, &uri).await;
        let want = norm(&j.name);
        f.check(title(&doc).contains(&want), || {
            format!("{uri}: the <title> {:?} does not hold the name {:?}", cut(&title(&doc)), cut(&want))
        });
        f.check(body_text(&doc).contains(&want), || format!("{uri}: the name {:?} is not shown whole", cut(&want)));
        // The deep link triage, the log and alerts use: a redirect to a window holding the
        // moment, on this site, whose page holds the name too.
        let at = (t(NOW) - Duration::hours(2)).format("%Y-%m-%dT%H:%M:%SZ");
        let uri = format!("/jobs/{}?at={at}&instance={}", enc(&j.id), enc(&j.instance));
        let (status, location) = server.location(&uri).await;
        if status.is_redirection() {
            f.check(location.starts_with("/jobs/") && location.is_ascii(), || {
                format!("{uri}: a redirect to {location:?}")
            });
            let doc = server.page(&mut f, location.split('#').next().unwrap_or_default()).await;
            f.check(body_text(&doc).contains(&want), || {
                format!("{location}: the name {:?} is not shown whole", cut(&want))
            });
        } else {
            f.check(status == StatusCode::OK, || format!("{uri}: {status}"));
        }
    }

    // The simulator: a row given in the URL comes back in its textarea as given; a job's
    // own row (its schedule's hostile name) and the impact on its hostile neighbours.
    let row = concat!(
        r#"{"freq_type": 4, "freq_interval": 1, "name": "</textarea><h1 id=pwned-sim>sim</h1>", "#,
        r#""</textarea><b id=pwned-key>": "\"><img src=x id=pwned-val onerror=alert(1)>", "#,
        "\"note\": \"\u{202E}rtl &amp; \\u0007 </title>\"}"
    );
    let uri = format!("/simulate?row={}", enc(row));
    let doc = server.page(&mut f, &uri).await;
    // The row comes back as the same JSON (laid out again), its strings whole.
    let areas: Vec<String> = doc.select(&sel("textarea")).map(text_of).collect();
    let given: Value = serde_json::from_str(row).expect("the row is JSON");
    let same = |a: &String| {
        serde_json::from_str::<Value>(a).is_ok_and(|v| v == given) && a.contains("</textarea><h1 id=pwned-sim>")
    };
    f.check(areas.iter().any(same), || format!("/simulate?row=: the textarea holds {areas:?}, not the row {row:?}"));
    for i in demo::FLEET.iter().filter(|i| **i != demo::UNREACHABLE) {
        let Some(j) = jobs.iter().find(|j| j.instance == *i) else { continue };
        let uri = format!("/simulate?instance={}&job={}", enc(i), enc(&j.id));
        let (status, html) = server.get(&uri).await;
        let doc = parse(&mut f, &uri, &html);
        if status == StatusCode::OK {
            f.check(body_text(&doc).contains(&norm(&j.name)), || {
                format!("{uri}: the job's name {:?} is not shown whole", cut(&j.name))
            });
        }
    }

    // The CSV export: it parses, every job cell is a job's name (a formula-like one after its
    // `'`), and the planted names and messages come back whole.
    for uri in ["/log.csv?days=30".to_owned(), format!("/log.csv?days=30&instance={}", enc(demo::PG_CRON_INSTANCE))] {
        let (status, body) = server.get(&uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {}", cut(&body));
        let mut reader = csv::Reader::from_reader(body.as_bytes());
        let header: Vec<String> = reader.headers().expect("a header").iter().map(str::to_owned).collect();
        assert_eq!(header, server::http::log_csv::COLUMNS, "{uri}");
        let (mut rows, mut named, mut texts) = (0, 0, 0);
        for r in reader.records() {
            let r = r.unwrap_or_else(|e| panic!("{uri}: not CSV: {e}"));
            rows += 1;
            f.check(r.len() == 6, || format!("{uri}: a record of {} fields: {r:?}", r.len()));
            let job = &r[2];
            let as_written =
                |n: &str| if n.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{n}") } else { n.to_owned() };
            f.check(job.is_empty() || names.iter().any(|n| as_written(n) == job), || {
                format!("{uri}: the job cell {:?} is no job's name", cut(job))
            });
            named += usize::from(planted_in(job, &all).is_some());
            texts += usize::from(r[4].contains(MESSAGE));
        }
        f.check(rows > 0 && named > 0, || format!("{uri}: {rows} lines, {named} of planted jobs"));
        if uri == "/log.csv?days=30" {
            f.check(texts > 0, || format!("{uri}: no line's text holds the planted message whole"));
        }
    }

    // /metrics: each instance's `job` labels, unescaped, are its jobs' names.
    let (status, text) = server.get("/metrics").await;
    assert_eq!(status, StatusCode::OK);
    let labels = metric_labels(&mut f, &text);
    for i in demo::FLEET.iter().filter(|i| **i != demo::UNREACHABLE) {
        let want: BTreeSet<String> = jobs.iter().filter(|j| j.instance == *i).map(|j| j.name.clone()).collect();
        let got: BTreeSet<String> = labels
            .iter()
            .filter(|(family, l)| {
                family == "sundial_job_missed_runs" && l.get("instance").map(String::as_str) == Some(*i)
            })
            .filter_map(|(_, l)| l.get("job").cloned())
            .collect();
        f.check(got == want, || format!("/metrics: {i}'s job labels {got:?} are not its jobs' names {want:?}"));
    }

    // Alerts: every problem open now, as each format's body.
    let problems = backend.problems_current().await;
    let open: Vec<server::alerts::decide::Open> =
        problems.judged.iter().map(|j| server::alerts::open(j, false, PUBLIC_URL, t(NOW))).collect();
    assert!(
        open.iter().any(|o| o.job.as_deref().is_some_and(|j| planted_in(j, &all).is_some())),
        "a problem of a planted job"
    );
    alerts(&mut f, &open, &problems.judged_instances);

    eprintln!(
        "{} names planted; {} jobs; {} HTML answers parsed, {} JSON answers and {} alert bodies read",
        all.len(),
        jobs.len(),
        f.pages,
        server.json.load(std::sync::atomic::Ordering::Relaxed),
        f.alerts
    );
    let n = f.found.len();
    assert!(f.found.is_empty(), "{n} place(s) where hostile text was not shown as text:\n{}", f.found.join("\n"));
}

/// The alerts' bodies for `open`: JSON that holds each job's name exactly; Slack's mrkdwn
/// whose only `<…>` are Sundial's links, its text the names once unescaped.
fn alerts(f: &mut Findings, open: &[server::alerts::decide::Open], judged: &std::collections::HashSet<String>) {
    use server::alerts::decide::{self, SentState, Settings};
    use server::alerts::payload;
    let settings = Settings {
        grace: chrono::TimeDelta::zero(),
        remind: None,
        min_severity: sundial_engine::triage::ProblemSeverity::Info,
        route: Default::default(),
        group: true,
        after: 1,
        resolve_after: 1,
        quiet: None,
    };
    // One message per problem, as a target would get them one by one.
    for o in open {
        let (messages, _) = decide::decide(std::slice::from_ref(o), judged, &SentState::new(), &settings, t(NOW));
        assert_eq!(messages.len(), 1, "{o:?}");
        let m = &messages[0];
        f.alerts += 4;
        // Every format's every text: no control character but a line break, no direction mark
        // (a job named with ESC or a right-to-left override reads as written, as in the log).
        for format in
            [payload::Format::Json, payload::Format::Slack, payload::Format::Teams, payload::Format::PagerDuty]
        {
            let (subject, body) = payload::render(m, format, PUBLIC_URL);
            let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", cut(&body)));
            let mut texts = vec![subject];
            strings(&v, &mut texts);
            for text in &texts {
                let raw = text.chars().find(|&c| (c.is_control() && c != '\n') || server::logging::is_invisible(c));
                f.check(raw.is_none(), || format!("{format:?} carries {raw:?} raw: {}", cut(text)));
            }
        }
        // The job's name as alerts show it: its controls and direction marks escaped.
        let shown_job = o.job.as_deref().map(|j| server::logging::visible(j, false));
        let (subject, body) = payload::render(m, payload::Format::Json, PUBLIC_URL);
        let v: Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("the JSON alert is not JSON ({e}): {}", cut(&body)));
        f.check(v["problems"][0]["job"].as_str() == shown_job.as_deref(), || {
            format!("the JSON alert's job is not {:?}: {}", shown_job, cut(&body))
        });
        f.check(v["subject"].as_str() == Some(subject.as_str()), || {
            format!("the JSON alert's subject: {}", cut(&body))
        });
        if let Some(job) = &shown_job {
            f.check(subject.contains(job.as_str()), || {
                format!("the subject {:?} lacks the job {job:?}", cut(&subject))
            });
        }
        let (_, body) = payload::render(m, payload::Format::Slack, PUBLIC_URL);
        let v: Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("the Slack alert is not JSON ({e}): {}", cut(&body)));
        let mut mrkdwn = vec![v["text"].as_str().expect("Slack's text").to_owned()];
        for b in v["blocks"].as_array().expect("blocks") {
            if b["text"]["type"] == "mrkdwn" {
                mrkdwn.push(b["text"]["text"].as_str().expect("a text").to_owned());
            }
            for e in b["elements"].as_array().into_iter().flatten() {
                mrkdwn.push(e["text"].as_str().expect("a text").to_owned());
            }
        }
        let mut shown = String::new();
        for text in &mrkdwn {
            match slack_text(text) {
                Ok(s) => shown.push_str(&s),
                Err(e) => f.add(format!("a Slack alert's mrkdwn {e}: {}", cut(text))),
            }
        }
        if let Some(job) = &shown_job {
            f.check(shown.contains(job.as_str()), || format!("the Slack alert does not show {job:?}: {}", cut(&shown)));
        }
    }
}

/// Slack's mrkdwn as a reader sees it: `<…>` only Sundial's links (`<https://sundial.test/…|label>`,
/// shown as their label), `&amp;`, `&lt;`, `&gt;` unescaped; an error for any other `<` or `>`.
fn slack_text(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find(['<', '>']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with('>') {
            return Err(format!("has a bare '>' at {:?}", cut(tail)));
        }
        let Some(end) = tail.find('>') else { return Err(format!("has an unclosed '<' at {:?}", cut(tail))) };
        let inner = &tail[1..end];
        if !inner.starts_with(&format!("{PUBLIC_URL}/")) || inner.contains('<') {
            return Err(format!("has a control sequence not Sundial's: <{}>", cut(inner)));
        }
        out.push_str(inner.split_once('|').map_or(inner, |(_, label)| label));
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
}

/// Every sample's family and labels, label values unescaped as the text format says
/// (`\\`, `\"`, `\n`); a sample that does not parse is a finding.
fn metric_labels(f: &mut Findings, text: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let mut out = Vec::new();
    // Lines end at LF only: a CR is a character of a label value.
    for line in text.split('\n') {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(brace) = line.find(['{', ' ']) else {
            f.add(format!("/metrics: a line that is no sample: {}", cut(line)));
            continue;
        };
        let name = &line[..brace];
        let mut labels = BTreeMap::new();
        let mut chars = line[brace..].chars();
        let mut ok = true;
        if line[brace..].starts_with('{') {
            chars.next();
            'pairs: loop {
                let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
                if chars.next() != Some('"') {
                    ok = false;
                    break;
                }
                let mut value = String::new();
                loop {
                    match chars.next() {
                        Some('\\') => match chars.next() {
                            Some('n') => value.push('\n'),
                            Some(e @ ('\\' | '"')) => value.push(e),
                            _ => {
                                ok = false;
                                break 'pairs;
                            }
                        },
                        Some('"') => break,
                        Some(c) => value.push(c),
                        None => {
                            ok = false;
                            break 'pairs;
                        }
                    }
                }
                labels.insert(key, value);
                match chars.next() {
                    Some(',') => continue,
                    Some('}') => break,
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
        }
        let value: String = chars.collect();
        ok &= value.trim().parse::<f64>().is_ok() && value.starts_with(' ');
        if ok {
            out.push((name.to_owned(), labels));
        } else {
            f.add(format!("/metrics: a sample that does not parse: {}", cut(line)));
        }
    }
    out
}
