//! The triage list over a fleet (the demo's SQLPROD01 and an instance that cannot be read),
//! through `GET /api/triage`, the page, and acknowledging with `POST /triage/ack`: what is
//! acknowledged is kept in Sundial's store, survives a restart, and leaves when resolved.
use crate::support::t;
use crate::support::web::{self, api, get, send};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use server::demo;
use server::http::AppState;

const NOW: &str = "2026-11-22T12:00:00Z";

/// The demo's file, and a fleet file naming it and a file that does not exist.
async fn fleet_toml(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo is written");
    format!(
        "store = {:?}\n[[instance]]\nname = \"SQLPROD01\"\nkind = \"sqlite_demo\"\npath = {:?}\n\n\
         [[instance]]\nname = \"GONE\"\nkind = \"sqlite_demo\"\npath = {:?}\n",
        dir.path().join("store.sqlite").to_string_lossy(),
        path.to_string_lossy(),
        dir.path().join("missing.sqlite").to_string_lossy(),
    )
}

fn problems(v: &Value) -> &Vec<Value> {
    v["problems"].as_array().expect("problems")
}

async fn post_ack(state: &AppState, form: &str) -> (StatusCode, String) {
    let req = Request::post("/triage/ack")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form.to_owned()))
        .unwrap();
    let a = send(state.clone(), req).await;
    let to = a.headers.get(header::LOCATION).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    (a.status, to)
}

#[tokio::test]
async fn the_fleets_problems_rank_worst_first_each_with_evidence_and_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let state = web::fleet_as_of(&fleet_toml(&dir).await, t(NOW)).await;
    let v = api(&state, "/api/triage").await;
    let p = problems(&v);
    assert!(!p.is_empty(), "{v}");
    // The unreadable instance first: critical, instance-wide, its error in the evidence.
    assert_eq!(p[0]["kind"], "unreachable", "{v}");
    assert_eq!(p[0]["severity"], "critical");
    assert_eq!(p[0]["instance"], "GONE");
    assert!(p[0]["job"].is_null());
    let evidence = p[0]["evidence"].as_str().unwrap();
    assert!(evidence.contains("cannot open the file"), "{evidence}");
    assert!(!evidence.contains("missing.sqlite") && !evidence.contains("/tmp"), "no path reaches a page: {evidence}");
    assert_eq!(v["instances"], 2);
    assert_eq!(v["judged_instances"], 1);
    let rank = |s: &str| ["critical", "error", "warning", "info"].iter().position(|x| *x == s).unwrap();
    let ranks: Vec<usize> = p.iter().map(|x| rank(x["severity"].as_str().unwrap())).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "worst first: {ranks:?}");
    for x in p {
        let kind = x["kind"].as_str().unwrap();
        assert!(
            [
                "unreachable",
                "scheduler_stopped",
                "zombie",
                "missed",
                "failed",
                "running_long",
                "too_short",
                "no_success",
                "next_run_disagrees",
                "stale",
                "deadline_missed"
            ]
            .contains(&kind)
        );
        assert!(x["since"].as_str().is_some_and(|s| chrono::DateTime::parse_from_rfc3339(s).is_ok()), "{x}");
        let link = x["link"].as_str().unwrap();
        if let Some(job) = x["job_id"].as_str() {
            assert!(link.starts_with(&format!("/jobs/{}", sundial_model::links::encode_segment(job))), "{link}");
            assert!(link.contains("at=") && link.contains("instance="), "{link}");
        }
    }
    // The page lists the same rows, in the same order, with a word beside each icon.
    let (status, html) = get(&state, "/triage").await;
    assert_eq!(status, StatusCode::OK);
    let first = html.find("data-testid=\"problem\"").expect("a problem row");
    assert!(html[first..].contains("data-kind=\"unreachable\""));
    assert!(html.contains(">unreachable<") || html.contains(" unreachable<"), "the word beside the icon");
    // The fleet page carries the same panel on top.
    let (_, fleet) = get(&state, "/fleet").await;
    assert!(fleet.find("data-testid=\"triage\"").unwrap() < fleet.find("data-testid=\"fleet-table\"").unwrap());
}

#[tokio::test]
async fn an_acknowledgement_is_shown_with_its_note_survives_a_restart_and_bad_forms_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let toml = fleet_toml(&dir).await;
    let state = web::fleet_as_of(&toml, t(NOW)).await;
    let v = api(&state, "/api/triage").await;
    let gone = problems(&v).iter().find(|x| x["instance"] == "GONE").unwrap().clone();
    assert!(gone["acknowledged"].is_null());
    let page = get(&state, "/triage").await.1;
    let key = "unreachable|GONE";
    let episode = {
        let i = page.find(&format!("value=\"{key}\"")).expect("the form names the problem");
        let rest = &page[i..];
        let j = rest.find("name=\"episode_ms\" value=\"").unwrap() + "name=\"episode_ms\" value=\"".len();
        rest[j..j + rest[j..].find('"').unwrap()].to_owned()
    };

    // A silence not offered, and a problem that is not open: back to the page, saying why.
    let (status, to) =
        post_ack(&state, &format!("key=unreachable%7CGONE&episode_ms={episode}&note=x&silence=5y&back=/triage")).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(to, "/triage?ack_error=silence");
    // The note the form requires, and who, bounded: refused when empty or too long, saying so.
    for (form, code) in [
        (format!("key=unreachable%7CGONE&episode_ms={episode}&note=&back=/triage"), "missing-note"),
        (format!("key=unreachable%7CGONE&episode_ms={episode}&note=+++&back=/triage"), "missing-note"),
        (format!("key=unreachable%7CGONE&episode_ms={episode}&note={}&back=/triage", "n".repeat(501)), "long-note"),
        (format!("key=unreachable%7CGONE&episode_ms={episode}&note=x&by={}&back=/triage", "b".repeat(81)), "long-by"),
    ] {
        let (_, to) = post_ack(&state, &form).await;
        assert_eq!(to, format!("/triage?ack_error={code}"), "{}", &form[..60]);
    }
    let page = get(&state, "/triage?ack_error=missing-note").await.1;
    assert!(page.contains("Nothing was acknowledged. The note is required."), "the page says which field");
    let (_, to) = post_ack(&state, "key=missed%7CGONE%7Cx&episode_ms=1&note=x&back=/triage").await;
    assert_eq!(to, "/triage?ack_error=resolved");
    let page = get(&state, &to).await.1;
    assert!(page.contains("That problem is no longer open"), "the page says why in its own words");
    // Text in the URL is never shown as the message (a link could make the page say anything).
    let page = get(&state, "/triage?ack_error=Call%20%2B1-555-0100%20now").await.1;
    let shown = page
        .split("data-testid=\"ack-error\"")
        .nth(1)
        .and_then(|r| r.split('>').nth(1)?.split("</p").next())
        .unwrap_or("");
    assert_eq!(shown, "The acknowledgement failed: nothing was acknowledged.", "only Sundial's sentences");
    // An outside address is never where the form goes back to.
    let (_, to) =
        post_ack(&state, &format!("key=unreachable%7CGONE&episode_ms={episode}&note=x&back=//evil.example")).await;
    assert_eq!(to, "/?acked=unreachable%7CGONE");

    let form = format!(
        "key=unreachable%7CGONE&episode_ms={episode}&by=Ana&note=host+retired%2C+ticket+42&silence=&back=/triage"
    );
    let (status, to) = post_ack(&state, &form).await;
    assert_eq!((status, to.as_str()), (StatusCode::SEE_OTHER, "/triage?acked=unreachable%7CGONE"));
    let check = |v: &Value| {
        let gone = problems(v).iter().find(|x| x["instance"] == "GONE").unwrap();
        assert_eq!(gone["acknowledged"]["by"], "Ana", "{gone}");
        assert_eq!(gone["acknowledged"]["note"], "host retired, ticket 42");
        assert!(gone["acknowledged"]["until"].is_null());
    };
    check(&api(&state, "/api/triage").await);
    let page = get(&state, "/triage").await.1;
    assert!(page.contains("Acknowledged by Ana") && page.contains("host retired, ticket 42"));

    // Sundial restarts over the same store: the episode and its acknowledgement are kept.
    drop(state);
    let again = web::fleet_as_of(&toml, t(NOW)).await;
    check(&api(&again, "/api/triage").await);

    // Undone: open and unacknowledged again, the form back, and kept so across a restart.
    let page = get(&again, "/triage").await.1;
    assert!(page.contains("data-testid=\"unack-form\""), "an acknowledgement that holds can be undone");
    let undo = |state: AppState, form: String| async move {
        let req = Request::post("/triage/unack")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(form))
            .unwrap();
        let a = send(state, req).await;
        (a.status, a.headers.get(header::LOCATION).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default())
    };
    let (status, to) = undo(again.clone(), format!("key=unreachable%7CGONE&episode_ms={episode}&back=/triage")).await;
    assert_eq!((status, to.as_str()), (StatusCode::SEE_OTHER, "/triage?unacked=unreachable%7CGONE"));
    let page = get(&again, &to).await.1;
    assert_eq!(texts(&page, "[data-testid=\"ack-done\"]"), ["Undone: GONE is open again."], "the page says so");
    let gone = |v: &Value| problems(v).iter().find(|x| x["instance"] == "GONE").unwrap().clone();
    assert!(gone(&api(&again, "/api/triage").await)["acknowledged"].is_null());
    let page = get(&again, "/triage").await.1;
    assert!(!page.contains("Acknowledged by Ana") && page.contains("data-testid=\"ack-form\""));
    let (_, to) = undo(again.clone(), format!("key=unreachable%7CGONE&episode_ms={episode}&back=/triage")).await;
    assert_eq!(to, "/triage?ack_error=resolved", "nothing left to undo");
    drop(again);
    let third = web::fleet_as_of(&toml, t(NOW)).await;
    assert!(gone(&api(&third, "/api/triage").await)["acknowledged"].is_null(), "undone in the store too");
}

/// One router serving several requests (as a server does): a page is kept while the data is
/// unchanged, and an acknowledgement shows at once on the next render.
#[tokio::test]
async fn a_kept_page_never_hides_an_acknowledgement() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let dir = tempfile::tempdir().unwrap();
    let state = web::fleet_as_of(&fleet_toml(&dir).await, t(NOW)).await;
    let router = server::http::router(state.clone());
    let fetch = |req: Request<Body>| {
        let router = router.clone();
        async move {
            let res = router.oneshot(req).await.unwrap();
            let status = res.status();
            (status, String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap())
        }
    };
    let (status, first) = fetch(Request::get("/triage").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    // Kept or not, every answer is the same page with its own script nonce.
    let nonce = |page: &str| {
        let i = page.find("nonce=\"").expect("a nonce") + "nonce=\"".len();
        page[i..i + page[i..].find('"').unwrap()].to_owned()
    };
    let (_, second) = fetch(Request::get("/triage").body(Body::empty()).unwrap()).await;
    let (_, third) = fetch(Request::get("/triage").body(Body::empty()).unwrap()).await;
    assert_ne!(nonce(&second), nonce(&third));
    assert_eq!(second.replace(&nonce(&second), "N"), third.replace(&nonce(&third), "N"));
    assert_eq!(first.replace(&nonce(&first), "N"), third.replace(&nonce(&third), "N"));
    // Compressed for a browser, each kept answer has its own nonce too.
    let gzipped = || {
        let router = router.clone();
        async move {
            let req = Request::get("/triage").header(header::ACCEPT_ENCODING, "gzip, deflate, br, zstd");
            let res = router.oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
            assert_eq!(res.headers()[header::CONTENT_ENCODING], "gzip");
            let bytes = res.into_body().collect().await.unwrap().to_bytes();
            let mut html = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut html).expect("gzip");
            html
        }
    };
    let (a, b) = (gzipped().await, gzipped().await);
    assert_ne!(nonce(&a), nonce(&b), "a fresh nonce in every compressed answer");
    assert_eq!(a.replace(&nonce(&a), "N"), first.replace(&nonce(&first), "N"));
    let i = first.find("name=\"episode_ms\" value=\"").unwrap() + "name=\"episode_ms\" value=\"".len();
    let episode = &first[i..i + first[i..].find('"').unwrap()];
    let form = format!("key=unreachable%7CGONE&episode_ms={episode}&by=Bo&note=on+it&back=/triage");
    let (status, _) = fetch(
        Request::post("/triage/ack")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(form))
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let (_, after) = fetch(Request::get("/triage").body(Body::empty()).unwrap()).await;
    assert!(after.contains("Acknowledged by Bo"), "the acknowledgement shows at once");
}

/// Every answer says nosniff, same-origin referrers and no framing. A page's policy lets run
/// only scripts that carry its own nonce, and every script of the page carries it: rendered or
/// kept, plain or compressed.
#[tokio::test]
async fn every_answer_has_the_security_headers_and_each_page_its_own_nonce() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let dir = tempfile::tempdir().unwrap();
    let state = web::fleet_as_of(&fleet_toml(&dir).await, t(NOW)).await;
    let router = server::http::router(state);
    let mut nonces = Vec::new();
    for (path, gzip) in [
        ("/triage", false),
        ("/triage", false),
        ("/triage", true),
        ("/fleet", false),
        ("/nowhere", false),
        ("/api/triage", false),
        ("/api/health", false),
    ] {
        let mut req = Request::get(path);
        if gzip {
            req = req.header(header::ACCEPT_ENCODING, "gzip");
        }
        let res = router.clone().oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
        let h = res.headers().clone();
        assert_eq!(h[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{path}");
        assert_eq!(h[header::REFERRER_POLICY], "same-origin", "{path}");
        assert_eq!(h[header::X_FRAME_OPTIONS], "DENY", "{path}");
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        if !h[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html") {
            assert!(path.starts_with("/api/"), "{path}");
            continue;
        }
        let mut page = String::new();
        if gzip {
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut page).unwrap();
        } else {
            page = String::from_utf8(bytes.to_vec()).unwrap();
        }
        let csp = h[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("object-src 'none'"), "{csp}");
        assert!(!csp.contains("unsafe-eval") || csp.contains("'wasm-unsafe-eval'"), "{csp}");
        let start = csp.find("'nonce-").expect("a nonce in the policy") + "'nonce-".len();
        let nonce = &csp[start..start + csp[start..].find('\'').unwrap()];
        let scripts: Vec<&str> = page.split("<script").skip(1).map(|s| &s[..s.find('>').unwrap()]).collect();
        assert!(scripts.len() >= 2, "{path}: {scripts:?}");
        for tag in &scripts {
            assert!(tag.contains(&format!(r#"nonce="{nonce}""#)), "{path}: <script{tag}> without the policy's nonce");
        }
        nonces.push(nonce.to_owned());
    }
    let mut distinct = nonces.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), nonces.len(), "one nonce per answer: {nonces:?}");
}

/// The fleet file's `[triage]` factors are the ones the job page flags runs with.
#[tokio::test]
async fn the_job_page_flags_runs_with_the_fleet_files_factors() {
    let dir = tempfile::tempdir().unwrap();
    // Top-level keys (the store) first, then the [triage] table, then the instances.
    let fleet = fleet_toml(&dir).await;
    let (store, instances) = fleet.split_once('\n').unwrap();
    let toml = format!("{store}\n[triage]\nlong_factor = 4.0\nshort_factor = 0.1\n{instances}");
    let state = web::fleet_as_of(&toml, t(NOW)).await;
    let jobs = api(&state, "/api/instances/SQLPROD01/jobs").await;
    let id = jobs["jobs"][0]["id"].as_str().expect("a job").to_owned();
    let req = Request::post("/api/fn/job_timeline")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("instance=SQLPROD01&job_id={}&days=7", sundial_model::links::encode_segment(&id))))
        .unwrap();
    let a = send(state, req).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let v: Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(v["durations"]["flags"]["long_factor"], 4.0, "{}", v["durations"]);
    assert_eq!(v["durations"]["flags"]["short_factor"], 0.1);
}

/// `data-testid="problem"` rows in the open list (before the acknowledged ones).
fn open_rows(html: &str) -> usize {
    let list = html.split("data-testid=\"acknowledged\"").next().unwrap_or(html);
    list.matches("data-testid=\"problem\"").count()
}

fn attr(html: &str, testid: &str, name: &str) -> Option<usize> {
    let at = html.find(&format!("data-testid=\"{testid}\""))?;
    let tag = &html[html[..at].rfind('<')?..at + html[at..].find('>')?];
    let v = tag.split(&format!("{name}=\"")).nth(1)?;
    v[..v.find('"')?].parse().ok()
}

#[tokio::test]
async fn a_long_list_shows_the_worst_counts_every_problem_and_lists_all_on_asking() {
    // The demo fleet: its planted trouble is a list worth cutting.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).expect("the fleet file is written beside");
    let state = web::fleet_as_of(&toml, t(NOW)).await;
    let all = problems(&api(&state, "/api/triage").await).len();
    assert!(all >= 4, "the demo has problems enough to cut: {all}");
    let (status, whole) = get(&state, "/triage?show=all").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(open_rows(&whole), all, "all listed on asking");
    assert!(!whole.contains("data-testid=\"triage-more\""), "nothing left to list");
    let summary = |h: &str| {
        let at = h.find("data-testid=\"triage-summary\"").unwrap();
        h[at..at + h[at..].find("</p>").unwrap()].to_owned()
    };
    // The worst two: the same first rows, the same counts in the summary and the header.
    let (_, two) = get(&state, "/triage?show=2").await;
    assert_eq!(open_rows(&two), 2);
    let keys =
        |h: &str| h.split("data-key=\"").skip(1).map(|k| k[..k.find('"').unwrap()].to_owned()).collect::<Vec<_>>();
    assert_eq!(keys(&two)[..2], keys(&whole)[..2], "the worst first");
    assert_eq!(summary(&two), summary(&whole), "the summary counts every problem");
    assert_eq!(attr(&two, "triage-more", "data-unlisted"), Some(all - 2));
    assert!(two.contains("href=\"/triage?show=all\""), "a way to list them all");
    assert_eq!(attr(&two, "open-count", "data-open"), Some(all), "the header counts every one");
    // A value that is no number is the page's default (every row here), never an error.
    let (status, bad) = get(&state, "/triage?show=lots").await;
    assert_eq!((status, open_rows(&bad)), (StatusCode::OK, all.min(sundial_model::triage::PAGE_ROWS)));
    // The fleet page's panel: the worst PANEL_ROWS at most, the same first ones.
    let (_, fleet) = get(&state, "/fleet").await;
    let panel = &fleet[..fleet.find("data-testid=\"fleet-table\"").unwrap()];
    assert_eq!(open_rows(panel), all.min(sundial_model::triage::PANEL_ROWS));
    assert_eq!(keys(panel)[..2], keys(&whole)[..2]);
}

/// Every ack form of a page: (key, episode_ms).
fn ack_forms(page: &str) -> Vec<(String, String)> {
    let doc = scraper::Html::parse_document(page);
    let form = scraper::Selector::parse("form[data-testid=\"ack-form\"]").unwrap();
    let input = |f: scraper::ElementRef, name: &str| {
        let sel = scraper::Selector::parse(&format!("input[name=\"{name}\"]")).unwrap();
        f.select(&sel).next().and_then(|i| i.value().attr("value")).unwrap_or_default().to_owned()
    };
    doc.select(&form).map(|f| (input(f, "key"), input(f, "episode_ms"))).collect()
}

/// The text of every element `css` selects on `page`, whitespace folded.
fn texts(page: &str, css: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(page);
    let sel = scraper::Selector::parse(css).unwrap();
    doc.select(&sel).map(|e| e.text().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

/// The review's sixth finding: acknowledging gave no feedback, the note showed only on the
/// triage card, and a silence was counted as acknowledged. The page says what was done where
/// the card was (role=status, with an undo); the note (who, when, note) shows on the job's
/// page, its row of the jobs list and the instance timeline; a silence is counted as silenced
/// in the page's counts, the header and the API.
#[tokio::test]
async fn an_acknowledgement_says_so_its_note_shows_on_every_view_and_a_silence_counts_as_silenced() {
    // The demo fleet: jobs with problems on several instances.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).expect("the fleet file is written beside");
    let state = web::fleet_as_of(&toml, t(NOW)).await;
    let page = get(&state, "/triage").await.1;
    let forms = ack_forms(&page);
    let job_problem = |(k, _): &&(String, String)| k.split('|').count() == 3;
    let (key, episode) = forms.iter().find(job_problem).unwrap_or_else(|| panic!("a job's problem: {forms:?}")).clone();
    let instance = key.split('|').nth(1).unwrap().to_owned();
    let form = format!(
        "key={}&episode_ms={episode}&by=Ana&note=rerun+after+the+patch&silence=4h&back=%2Ftriage",
        sundial_model::links::encode_segment(&key)
    );
    let (status, to) = post_ack(&state, &form).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(to, format!("/triage?acked={}", sundial_model::links::encode_segment(&key)));
    let page = get(&state, &to).await.1;
    let done = texts(&page, "[data-testid=\"ack-done\"][role=\"status\"]");
    assert_eq!(done.len(), 1, "announced once, where the card was");
    assert!(done[0].starts_with(&format!("Silenced {instance} / ")), "{}", done[0]);
    assert!(done[0].contains("rerun after the patch"), "{}", done[0]);
    assert_eq!(texts(&page, "[data-testid=\"ack-done\"] [data-testid=\"unack\"]").len(), 1, "with its undo");
    assert!(!get(&state, "/triage").await.1.contains("data-testid=\"ack-done\""), "said once, not on every visit");

    // Counted as silenced, not acknowledged: the page, the header, the API.
    assert_eq!(texts(&page, "[data-testid=\"acknowledged\"] > summary"), ["1 silenced"]);
    let header = texts(&page, "[data-testid=\"open-count\"]");
    assert!(header[0].ends_with("· 1 silenced") && !header[0].contains("acknowledged"), "{header:?}");
    let v = api(&state, "/api/triage").await;
    assert_eq!((v["acknowledged"].as_u64(), v["silenced"].as_u64()), (Some(0), Some(1)), "{v}");
    let held = problems(&v).iter().find(|p| !p["silenced"].is_null()).expect("the silenced problem").clone();
    assert!(held["acknowledged"].is_null(), "{held}");
    assert_eq!(
        (held["silenced"]["by"].as_str(), held["silenced"]["note"].as_str()),
        (Some("Ana"), Some("rerun after the patch"))
    );
    assert!(held["silenced"]["at"].is_string() && held["silenced"]["until"].is_string(), "{held}");

    // The note wherever the job or its instance is shown.
    let job = sundial_model::links::encode_segment(held["job_id"].as_str().unwrap());
    let i = sundial_model::links::encode_segment(&instance);
    let job_page = get(&state, &format!("/jobs/{job}?instance={i}")).await.1;
    let notes = texts(&job_page, "[data-testid=\"held-note\"]");
    assert!(notes.iter().any(|n| n.starts_with("Silenced by Ana") && n.contains("rerun after the patch")), "{notes:?}");
    let list = get(&state, &format!("/jobs?instance={i}&days=7")).await.1;
    let notes = texts(&list, "tr [data-testid=\"held-note\"]");
    assert_eq!(notes.len(), 1, "on its row of the jobs list: {notes:?}");
    assert!(notes[0].contains("rerun after the patch"));
    let timeline = get(&state, &format!("/timeline?instance={i}")).await.1;
    let notes = texts(&timeline, "[data-testid=\"itl-held\"] [data-testid=\"held-note\"]");
    assert_eq!(notes.len(), 1, "on the instance timeline: {notes:?}");
    assert!(notes[0].starts_with(&format!("{instance} / ")) && notes[0].contains("Silenced by Ana"), "{}", notes[0]);

    // An acknowledgement (no silence) beside it is counted as acknowledged.
    let (other, episode) = forms.iter().find(|(k, _)| *k != key).expect("another problem").clone();
    let form = format!(
        "key={}&episode_ms={episode}&by=Bo&note=retired&back=%2Ftriage",
        sundial_model::links::encode_segment(&other)
    );
    post_ack(&state, &form).await;
    let v = api(&state, "/api/triage").await;
    assert_eq!((v["acknowledged"].as_u64(), v["silenced"].as_u64()), (Some(1), Some(1)), "{v}");
    let page = get(&state, "/triage").await.1;
    assert_eq!(texts(&page, "[data-testid=\"acknowledged\"] > summary"), ["1 acknowledged, 1 silenced"]);
}
