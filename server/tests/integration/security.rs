//! The holes a security review found (issue 25), each refused, generalised:
//!
//! - no spelling of a path reaches a page without sign-in: every route × encoded dots and
//!   slashes, `..`, `//`, `\`, mixed case, a trailing `/.`, under `/pkg/` and beside it, is
//!   refused (sign-in, 401) or is a static file, or the file service's empty 404;
//! - every redirect (`next=`, `back=`, the cross-site bounce) lands on this site, as a
//!   browser's URL parser reads it (the `url` crate is WHATWG's parser: tabs and newlines
//!   dropped, `\` read as `/`), for any text (property test);
//! - without sign-in, a request naming another host (DNS rebinding) is refused;
//! - failed sign-ins slow the guesser without locking the right user out;
//! - answers to a principal are `no-store`; every answer carries a Content-Security-Policy;
//! - roles are the users file's at each request; the CSV is streamed.
use crate::support::web::{self, Answer, send, send_to};
use crate::support::{fixture, t};
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode, header};
use leptos::config::LeptosOptions;
use proptest::prelude::*;
use server::auth::Auth;
use server::http::AppState;
use std::net::SocketAddr;
use std::sync::{Arc, LazyLock};

const ALICE_PASSWORD: &str = "correct horse battery staple";

static USERS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "[[user]]\nname = \"alice\"\nrole = \"admin\"\npassword_hash = \"{}\"\n",
        server::auth::hash_password(ALICE_PASSWORD).unwrap()
    )
});

/// A site root of the test's own: `pkg/sundial.css`, `pkg/sundial.wasm` and `favicon.svg`.
fn site() -> &'static std::path::Path {
    static SITE: LazyLock<tempfile::TempDir> = LazyLock::new(|| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/sundial.css"), "body{color:#123}").unwrap();
        std::fs::write(dir.path().join("pkg/sundial.wasm"), b"\0asm\x01\0\0\0").unwrap();
        std::fs::write(dir.path().join("favicon.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\"/>").unwrap();
        dir
    });
    SITE.path()
}

/// One unreadable instance (so triage has a problem), sign-in with alice, the test's site.
async fn signed_in_state(proxies: &[&str]) -> AppState {
    with_users_file(proxies).await.0
}

/// The same, and where its users file is.
async fn with_users_file(proxies: &[&str]) -> (AppState, std::path::PathBuf) {
    let dir = Box::leak(Box::new(tempfile::tempdir().unwrap()));
    let toml = format!(
        "store = {:?}\n[[instance]]\nname = \"GONE\"\nkind = \"sqlite_demo\"\npath = {:?}\n",
        dir.path().join("store.sqlite").to_string_lossy(),
        dir.path().join("missing.sqlite").to_string_lossy()
    );
    let mut state = web::fleet_as_of(&toml, t("2026-11-22T12:00:00Z")).await;
    state.leptos_options =
        LeptosOptions::builder().output_name("sundial").site_root(site().to_string_lossy().into_owned()).build();
    let users = dir.path().join("users.toml");
    std::fs::write(&users, USERS.as_str()).unwrap();
    let mut config = server::config::AuthConfig::users(users.clone());
    config.forwarded_by = proxies.iter().map(|p| p.parse().unwrap()).collect();
    (state.with_auth(Some(Arc::new(Auth::load(&config).unwrap()))), users)
}

fn get(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).unwrap()
}

fn post(uri: &str, form: &str) -> Request<Body> {
    Request::post(uri)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form.to_owned()))
        .unwrap()
}

fn from(addr: &str, mut req: Request<Body>) -> Request<Body> {
    req.extensions_mut().insert(ConnectInfo(addr.parse::<SocketAddr>().unwrap()));
    req
}

fn location(a: &Answer) -> String {
    let v = a.headers.get(header::LOCATION);
    // A Location is ASCII (anything else percent-encoded): a browser reads nothing else alike.
    assert!(v.is_none_or(|v| v.to_str().is_ok()), "a Location that is not ASCII: {v:?}");
    v.map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default()
}

/// The routes a reader could want without signing in.
const ROUTES: [&str; 17] = [
    "/",
    "/jobs",
    "/jobs/1?instance=GONE",
    "/fleet",
    "/triage",
    "/log?days=30",
    "/timeline",
    "/simulate",
    "/log.csv",
    "/metrics",
    "/api/instances",
    "/api/jobs",
    "/api/log",
    "/api/triage",
    "/api/risks",
    "/api/openapi.json",
    "/signin/../triage",
];

/// The spellings of `route` (a path starting with `/`) that a router, a file service or a
/// browser might resolve to it.
fn spellings(route: &str) -> Vec<String> {
    let r = route.trim_start_matches('/');
    let mut out = vec![route.to_owned()];
    for prefix in [
        "/pkg/%2e%2e/",
        "/pkg/%2E%2E/",
        "/pkg/.%2e/",
        "/pkg/%2e./",
        "/pkg/../",
        "/pkg/./../",
        "/pkg//../",
        "/pkg/..%2f",
        "/pkg/..%2F",
        "/pkg/%2e%2e%2f",
        "/pkg/..%5c",
        "/pkg/%5c../",
        "/pkg%2f..%2f",
        "/PKG/../",
        "/Pkg/%2e%2e/",
        "/pkg/sundial.css/../../",
        "/pkg/x/../../",
        "/pkg/%252e%252e/",
        "/favicon.svg/../",
        "/favicon.svg/%2e%2e/",
        "/api/health/../",
        "/api/health/%2e%2e/",
        "/signin/../",
        "/signin/%2e%2e/",
        "//",
        "/./",
        "/%2e/",
        "/%2f",
        "/%5c",
    ] {
        out.push(format!("{prefix}{r}"));
    }
    let (path, query) = route.split_once('?').map_or((route, ""), |(p, q)| (p, q));
    let q = if query.is_empty() { String::new() } else { format!("?{query}") };
    for suffix in ["/.", "/", "/%2e", "/./", "//"] {
        out.push(format!("{path}{suffix}{q}"));
    }
    out.push(route.to_uppercase());
    out
}

/// What an answer without sign-in may be: refused (to sign-in, or 401), a static file's
/// bytes, or nothing (a 4xx without a page).
fn refused_or_static(uri: &str, a: &Answer) {
    let text = a.text();
    let is_file = a.status == StatusCode::OK
        && [&b"body{color:#123}"[..], b"\0asm\x01\0\0\0", b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"]
            .contains(&a.body.as_slice());
    let to_sign_in = a.status == StatusCode::SEE_OTHER && location(a).starts_with("/signin");
    let unauthorized = a.status == StatusCode::UNAUTHORIZED && !text.contains("GONE");
    let nothing = a.status.is_client_error() && !text.contains("<html") && !text.contains("GONE");
    assert!(
        is_file || to_sign_in || unauthorized || nothing,
        "{uri}: {} {:?} answered without sign-in:\n{}",
        a.status,
        location(a),
        text.chars().take(300).collect::<String>()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_spelling_of_a_path_reaches_a_page_or_data_without_sign_in() {
    let state = signed_in_state(&[]).await;
    let mut asked = 0;
    for route in ROUTES {
        for uri in spellings(route) {
            let Ok(req) = Request::get(uri.as_str()).body(Body::empty()) else { continue };
            let a = send(state.clone(), req).await;
            refused_or_static(&uri, &a);
            asked += 1;
        }
    }
    assert!(asked > 400, "{asked} spellings asked");
    // The static files themselves are served to anyone, and only them.
    for (uri, body) in
        [("/pkg/sundial.css", "body{color:#123}"), ("/favicon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>")]
    {
        let a = send(state.clone(), get(uri)).await;
        assert_eq!((a.status, a.text().as_str()), (StatusCode::OK, body), "{uri}");
    }
    let a = send(state.clone(), get("/pkg/missing.js")).await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    assert!(a.body.is_empty(), "a missing file is an empty 404, never a page");
}

/// Where a browser goes for `location`, sent by `http://sundial.test/page`.
fn browser_goes_to(location: &str) -> Option<url::Url> {
    url::Url::parse("http://sundial.test/page").unwrap().join(location).ok()
}

fn stays_here(what: &str, location: &str) {
    let to = browser_goes_to(location);
    assert!(
        to.as_ref().is_some_and(|u| u.scheme() == "http" && u.host_str() == Some("sundial.test") && u.port().is_none()),
        "{what}: {location:?} leads to {to:?}"
    );
}

/// Redirect targets: the review's, and the tricks around them.
const TARGETS: [&str; 14] = [
    "//evil.example",
    "/%09/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "///evil.example",
    "http://evil.example",
    "https:evil.example",
    "javascript:alert(1)",
    "/\u{202E}/evil.example",
    " //evil.example",
    "/%5c%5cevil.example",
    "/triage?ok=1",
];

fn form_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// Every redirect of Sundial's for `target`: `/signin`'s `next`, `/prefs`'s and
/// `/triage/ack`'s `back`, and the page that bounces a link from another site.
async fn redirects_for(signed: &AppState, open: &AppState, target: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let t = form_encode(target);
    let a = send(signed.clone(), post("/signin", &format!("name=alice&password=wrong&next={t}"))).await;
    let next = location(&a);
    out.push(("/signin next (wrong password)".into(), next.clone()));
    // The sign-in page's own `next` goes back into a form: it must lead here too.
    if let Some((_, n)) = next.split_once("next=") {
        out.push(("the next= the sign-in page keeps".into(), percent_decode(n)));
    }
    let a = send(open.clone(), post("/prefs", &format!("theme=dark&back={t}"))).await;
    out.push(("/prefs back".into(), location(&a)));
    let a = send(open.clone(), post("/triage/ack", &format!("key=k&episode_ms=0&note=n&back={t}"))).await;
    out.push(("/triage/ack back".into(), location(&a)));
    // The bounce: the raw path of a link followed from another site.
    let raw: String = target
        .bytes()
        .map(|b| if b.is_ascii_graphic() && b != b'%' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    if let Ok(mut req) = Request::get(raw.as_str()).body(Body::empty()) {
        req.headers_mut().insert("sec-fetch-site", "cross-site".parse().unwrap());
        req.headers_mut().insert("sec-fetch-mode", "navigate".parse().unwrap());
        let a = send(signed.clone(), req).await;
        if a.status == StatusCode::OK {
            let page = a.text();
            assert!(a.headers.contains_key(header::CONTENT_SECURITY_POLICY), "the bounce has a CSP");
            let refresh = page.split("content=\"0;url=").nth(1).and_then(|r| r.split('"').next()).expect("a refresh");
            out.push(("the bounce's refresh".into(), html_unescape(refresh)));
        } else {
            out.push(("the bounce (refused)".into(), location(&a)));
        }
    }
    out
}

fn percent_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes()).next().map(|(_, v)| v.into_owned()).unwrap_or_default()
}

fn html_unescape(s: &str) -> String {
    s.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

#[tokio::test(flavor = "multi_thread")]
async fn every_redirect_stays_on_this_site_whatever_it_is_given() {
    let signed = signed_in_state(&[]).await;
    let open = web::state(Arc::new(fixture::FixtureBackend { fail: false, kind: "mssql" }));
    for target in TARGETS {
        for (what, to) in redirects_for(&signed, &open, target).await {
            if !to.is_empty() {
                stays_here(&format!("{what} for {target:?}"), &to);
            }
        }
    }
    // Any text at all (property test; 64 cases here, more under `make fuzz`).
    let rt = tokio::runtime::Handle::current();
    let cases = std::env::var("SUNDIAL_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64u32);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases, ..ProptestConfig::default() });
    let text = prop_oneof![any::<String>(), "[/\\\\\t\n\r %.a-z:@?#]{0,12}", "(/|//|\\\\|/\t/|/%09/)[a-z.]{1,12}",];
    let result = tokio::task::block_in_place(|| {
        runner.run(&text, |target| {
            let found = rt.block_on(redirects_for(&signed, &open, &target));
            for (what, to) in found {
                if !to.is_empty() {
                    let here = browser_goes_to(&to)
                        .is_some_and(|u| u.host_str() == Some("sundial.test") && u.scheme() == "http");
                    prop_assert!(here, "{} for {:?}: {:?}", what, target, to);
                }
            }
            Ok(())
        })
    });
    result.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn without_sign_in_a_request_naming_another_host_is_refused() {
    let state = web::state(Arc::new(fixture::FixtureBackend { fail: false, kind: "mssql" }));
    let with_host = |mut req: Request<Body>, host: &str| {
        req.headers_mut().insert(header::HOST, host.parse().unwrap());
        req
    };
    // The review's rebinding: a page of attacker.example, resolved to 127.0.0.1, posting to
    // itself (so Origin matches Host).
    let mut ack =
        with_host(post("/triage/ack", "key=k&episode_ms=0&note=n&silence=7d&by=mallory"), "attacker.example:3000");
    ack.headers_mut().insert(header::ORIGIN, "http://attacker.example:3000".parse().unwrap());
    let a = send(state.clone(), ack).await;
    assert_eq!(a.status, StatusCode::MISDIRECTED_REQUEST);
    assert!(!a.text().contains("attacker"), "the refusal does not echo the host");
    for uri in ["/api/instances", "/api/jobs", "/triage", "/metrics", "/log.csv", "/pkg/sundial.css"] {
        let a = send(state.clone(), with_host(get(uri), "attacker.example:3000")).await;
        assert_eq!(a.status, StatusCode::MISDIRECTED_REQUEST, "{uri}");
    }
    for host in ["127.0.0.1:3000", "localhost:3000", "[::1]:3000"] {
        let a = send(state.clone(), with_host(get("/api/instances"), host)).await;
        assert_eq!(a.status, StatusCode::OK, "{host}");
    }
    // Reached through its public_url's name, it answers to that name.
    let a = send_to(state.clone(), Some("https://sundial.corp"), with_host(get("/api/health"), "sundial.corp")).await;
    assert_eq!(a.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn guessing_a_password_slows_the_guesser_and_never_locks_out_the_user_from_their_browser() {
    let state = signed_in_state(&["127.0.0.1/32"]).await;
    let attempt = |peer: &'static str, forwarded: Option<&str>, device: Option<&str>, password: &str| {
        let mut req = from(peer, post("/signin", &format!("name=alice&password={}&next=%2F", form_encode(password))));
        if let Some(f) = forwarded {
            req.headers_mut().insert("x-forwarded-for", f.parse().unwrap());
        }
        if let Some(d) = device {
            req.headers_mut().insert(header::COOKIE, format!("sundial_device={d}").parse().unwrap());
        }
        send(state.clone(), req)
    };
    let device_of = |a: &Answer| {
        a.headers
            .get_all(header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|c| c.strip_prefix("sundial_device="))
            .map(|c| c.split(';').next().unwrap().to_owned())
    };
    // Alice signs in once from her browser: it is known from now on.
    let a = attempt("198.51.100.7:5000", None, None, ALICE_PASSWORD).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    let device = device_of(&a).expect("a device cookie");
    let set = a.headers.get_all(header::SET_COOKIE).iter().map(|v| v.to_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert!(set.iter().all(|c| c.contains("HttpOnly") && c.contains("Secure") && c.contains("SameSite=Strict")));

    // 40 wrong passwords for alice from 40 addresses.
    for i in 0..40 {
        let peer: &'static str = Box::leak(format!("192.0.2.{}:4000", i + 1).into_boxed_str());
        let a = attempt(peer, None, None, "guess").await;
        assert!(matches!(a.status, StatusCode::SEE_OTHER | StatusCode::TOO_MANY_REQUESTS), "{}", a.status);
    }
    // A stranger's browser waits: the name is being guessed.
    let a = attempt("203.0.113.9:5000", None, None, ALICE_PASSWORD).await;
    assert_eq!(a.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(a.headers.contains_key(header::RETRY_AFTER) && a.headers.contains_key(header::CONTENT_SECURITY_POLICY));
    // Alice's own browser, from a new address, signs in.
    let a = attempt("203.0.113.10:5000", None, Some(&device), ALICE_PASSWORD).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "the right user is not locked out");
    assert_eq!(location(&a), "/");
    // A cookie that Sundial did not give is no key.
    let a = attempt("203.0.113.11:5000", None, Some(&"0".repeat(64)), ALICE_PASSWORD).await;
    assert_eq!(a.status, StatusCode::TOO_MANY_REQUESTS);

    // Behind the same-host proxy, one client's guesses do not lock out another client.
    let state2 = signed_in_state(&["127.0.0.1/32"]).await;
    for _ in 0..10 {
        let mut req = from("127.0.0.1:6000", post("/signin", "name=bob&password=guess&next=%2F"));
        req.headers_mut().insert("x-forwarded-for", "192.0.2.200".parse().unwrap());
        send(state2.clone(), req).await;
    }
    let through_proxy = |client: &str, password: &str| {
        let mut req =
            from("127.0.0.1:6000", post("/signin", &format!("name=alice&password={}", form_encode(password))));
        req.headers_mut().insert("x-forwarded-for", client.parse().unwrap());
        send(state2.clone(), req)
    };
    assert_eq!(
        through_proxy("192.0.2.200", ALICE_PASSWORD).await.status,
        StatusCode::TOO_MANY_REQUESTS,
        "the guesser waits"
    );
    assert_eq!(
        through_proxy("198.51.100.20", ALICE_PASSWORD).await.status,
        StatusCode::SEE_OTHER,
        "everyone else signs in"
    );
    // An X-Forwarded-For from a client that is not a trusted proxy names nobody.
    let mut req = from("192.0.2.200:6000", post("/signin", "name=alice&password=x"));
    req.headers_mut().insert("x-forwarded-for", "198.51.100.21".parse().unwrap());
    assert_eq!(send(state2.clone(), req).await.status, StatusCode::TOO_MANY_REQUESTS, "still the guesser's address");
}

/// Sign in as alice: the session cookie.
async fn session(state: &AppState) -> String {
    let a = send(state.clone(), post("/signin", &format!("name=alice&password={}", form_encode(ALICE_PASSWORD)))).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    let c = a
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap())
        .find(|c| c.starts_with("sundial_session="));
    c.unwrap().split(';').next().unwrap().to_owned()
}

fn with_cookie(mut req: Request<Body>, cookie: &str) -> Request<Body> {
    req.headers_mut().insert(header::COOKIE, cookie.parse().unwrap());
    req
}

#[tokio::test(flavor = "multi_thread")]
async fn what_a_principal_is_shown_is_never_stored_and_every_answer_has_a_policy() {
    let state = signed_in_state(&[]).await;
    let cookie = session(&state).await;
    for uri in ["/triage", "/fleet", "/api/instances", "/api/triage", "/log.csv", "/metrics", "/jobs/x?instance=GONE"] {
        let a = send(state.clone(), with_cookie(get(uri), &cookie)).await;
        assert_eq!(a.headers.get(header::CACHE_CONTROL).map(|v| v.to_str().unwrap()), Some("no-store"), "{uri}");
        assert!(a.headers.contains_key(header::CONTENT_SECURITY_POLICY), "{uri}");
    }
    for uri in ["/triage", "/api/instances", "/pkg/sundial.css", "/pkg/missing"] {
        let a = send(state.clone(), get(uri)).await;
        assert!(a.headers.contains_key(header::CONTENT_SECURITY_POLICY), "{uri} without sign-in");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sessions_role_is_the_users_files_at_each_request() {
    let (state, users) = with_users_file(&[]).await;
    let cookie = session(&state).await;
    let page = send(state.clone(), with_cookie(get("/triage"), &cookie)).await.text();
    assert!(page.contains("data-testid=\"ack-form\""), "alice is an admin");
    std::fs::write(&users, USERS.replace("\"admin\"", "\"viewer\"")).unwrap();
    let page = send(state.clone(), with_cookie(get("/triage"), &cookie)).await.text();
    assert!(!page.contains("data-testid=\"ack-form\""), "demoted: no acknowledge forms at once");
    // A browser's form is refused back to its page, which says why.
    let a = send(state.clone(), with_cookie(post("/triage/ack", "key=k&episode_ms=0&note=n&back=%2Ftriage"), &cookie))
        .await;
    assert_eq!((a.status, location(&a)), (StatusCode::SEE_OTHER, "/triage?ack_error=forbidden".into()));
    let a = send(state.clone(), with_cookie(post("/triage/unack", "key=k&episode_ms=0&back=%2Ftriage"), &cookie)).await;
    assert_eq!((a.status, location(&a)), (StatusCode::SEE_OTHER, "/triage?ack_error=forbidden".into()), "nor undo one");
    // A users file that no longer reads keeps the accounts it gave.
    std::fs::write(&users, "[[user]]\nname = ").unwrap();
    assert_eq!(send(state.clone(), with_cookie(get("/triage"), &cookie)).await.status, StatusCode::OK);
    let bob =
        format!("[[user]]\nname = \"bob\"\npassword_hash = \"{}\"\n", server::auth::hash_password("bob-pw").unwrap());
    std::fs::write(&users, bob).unwrap();
    let a = send(state.clone(), with_cookie(get("/triage"), &cookie)).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "removed: signed out");
    assert!(location(&a).starts_with("/signin"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_memory_keeps_each_browsers_zone_apart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    server::demo::write_demo(&db, t("2026-11-22T12:00:00Z"), 42).await.unwrap();
    let toml =
        format!("[[instance]]\nname = \"SQLPROD01\"\nkind = \"sqlite_demo\"\npath = {:?}\n", db.to_string_lossy());
    let state = web::fleet_as_of(&toml, t("2026-11-22T12:00:00Z")).await;
    let router = web::router(state).await;
    let page = async |zone: &str| {
        let req = Request::get("/jobs?days=7")
            .header(header::COOKIE, format!("sundial-zone=browser; sundial-browser-tz={zone}"))
            .body(Body::empty())
            .unwrap();
        let _rendering = web::rendering().await;
        let res = tower::ServiceExt::oneshot(router.clone(), req).await.unwrap();
        let body = http_body_util::BodyExt::collect(res.into_body()).await.unwrap().to_bytes();
        String::from_utf8_lossy(&body).into_owned()
    };
    // One reader in Kolkata, then one in New York within the memory's 5 s: each their own.
    assert!(page("Asia%2FKolkata").await.contains("<span class=\"tz-off\">UTC+5:30</span>"));
    let ny = page("America%2FNew_York").await;
    let offs: std::collections::BTreeSet<&str> =
        ny.split("<span class=\"tz-off\">").skip(1).map(|t| t.split('<').next().unwrap()).collect();
    assert_eq!(offs, ["UTC\u{2212}5"].into(), "every time in New York's zone, none in Kolkata's");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_search_echoes_its_words_as_text() {
    let state = web::state(Arc::new(fixture::FixtureBackend { fail: false, kind: "mssql" }));
    let (status, html) = web::get(&state, "/find?q=%3C%2Ftitle%3E%3Ch1%20id%3Dpwned%3E%22%3E").await;
    assert_eq!(status, StatusCode::OK);
    assert!(!html.contains("<h1 id=pwned>") && !html.contains("</title><h1"), "escaped");
    assert!(html.contains("&lt;h1 id=pwned&gt;"), "shown as the words asked");
    let (_, html) = web::get(&state, "/find?q=backup").await;
    assert!(html.contains("data-testid=\"found-job\""), "the fixture's backups are found");
}
