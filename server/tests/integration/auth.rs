//! Sign-in: off loopback every page and API call needs a principal (a session from the sign-in
//! page, an API token, or a trusted proxy's user); viewers read, admins also acknowledge;
//! sign-in attempts are limited per address; no state-changing request from another site.
use crate::support::web::{self, Answer, send, send_to};
use crate::support::{stderr, sundial, t};
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode, header};
use server::auth::{Accounts, Auth};
use server::http::AppState;
use std::net::SocketAddr;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

const ALICE_PASSWORD: &str = "correct horse battery staple";
const BOB_PASSWORD: &str = "bob's own secret";

/// The users file: alice (admin), bob (viewer), and a viewer token; its token.
static USERS: LazyLock<(String, String)> = LazyLock::new(|| {
    let (token, digest) = server::auth::new_token().expect("a token");
    let text = format!(
        "[[user]]\nname = \"alice\"\nrole = \"admin\"\npassword_hash = \"{}\"\n\n\
         [[user]]\nname = \"bob\"\npassword_hash = \"{}\"\n\n\
         [[token]]\nname = \"prometheus\"\nrole = \"viewer\"\nsha256 = \"{digest}\"\n",
        server::auth::hash_password(ALICE_PASSWORD).unwrap(),
        server::auth::hash_password(BOB_PASSWORD).unwrap(),
    );
    (text, token)
});

/// A fleet of one instance that cannot be read (so triage has a problem to acknowledge), as of
/// a fixed now, asking for sign-in with [`USERS`] (and `proxy`, if any).
async fn state(proxy: Option<server::config::ProxyConfig>) -> AppState {
    let dir = Box::leak(Box::new(tempfile::tempdir().unwrap()));
    let toml = format!(
        "store = {:?}\n[[instance]]\nname = \"GONE\"\nkind = \"sqlite_demo\"\npath = {:?}\n",
        dir.path().join("store.sqlite").to_string_lossy(),
        dir.path().join("missing.sqlite").to_string_lossy()
    );
    let state = web::fleet_as_of(&toml, t("2026-11-22T12:00:00Z")).await;
    let accounts = Accounts::parse(&USERS.0, "users.toml").expect("the users file");
    state.with_auth(Some(Arc::new(Auth::new(accounts, Duration::from_secs(3600), proxy))))
}

fn from(addr: &str, mut req: Request<Body>) -> Request<Body> {
    req.extensions_mut().insert(ConnectInfo(addr.parse::<SocketAddr>().unwrap()));
    req
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

fn with_cookie(mut req: Request<Body>, cookie: &str) -> Request<Body> {
    req.headers_mut().insert(header::COOKIE, cookie.parse().unwrap());
    req
}

fn location(a: &Answer) -> String {
    a.headers.get(header::LOCATION).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default()
}

/// Sign in as `name`; the session cookie (`name=value`) it sets.
async fn sign_in(state: &AppState, name: &str, password: &str) -> String {
    let a = send(
        state.clone(),
        post("/signin", &format!("name={name}&password={}&next=%2Ftriage", password.replace(' ', "+"))),
    )
    .await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "{}", a.text());
    assert_eq!(location(&a), "/triage");
    let set = a.headers.get(header::SET_COOKIE).expect("a session cookie").to_str().unwrap().to_owned();
    for attr in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(attr), "{attr} in {set}");
    }
    set.split(';').next().unwrap().to_owned()
}

#[tokio::test]
async fn without_a_principal_pages_go_to_sign_in_and_data_answers_401() {
    let state = state(None).await;
    let a = send(state.clone(), get("/fleet?days=7")).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    assert_eq!(location(&a), "/signin?next=%2Ffleet%3Fdays%3D7");
    for uri in ["/api/instances", "/api/triage", "/metrics", "/log.csv", "/api/jobs"] {
        let a = send(state.clone(), get(uri)).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{uri}");
        assert_eq!(a.headers[header::WWW_AUTHENTICATE], "Bearer realm=\"Sundial\"", "{uri}");
        let v: serde_json::Value = serde_json::from_slice(&a.body).expect("JSON");
        assert_eq!(v["kind"], "unauthorized", "{uri}");
        assert!(!a.text().contains("GONE"), "{uri} says nothing of the fleet: {}", a.text());
    }
    // Acknowledging without a principal is refused, not performed.
    let a = send(state.clone(), post("/triage/ack", "key=x&episode_ms=0&by=mallory&note=n&silence=&back=%2F")).await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    // Anyone may reach the sign-in page, the health check and the static files.
    let a = send(state.clone(), get("/signin?next=%2Ffleet")).await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.text().contains("data-testid=\"signin-form\"") && a.text().contains("value=\"/fleet\""), "{}", a.text());
    assert!(!a.text().contains("GONE"), "the sign-in page shows nothing of the fleet");
    assert_eq!(send(state.clone(), get("/api/health")).await.status, StatusCode::OK);
    let css = send(state.clone(), get("/pkg/sundial.css")).await.status;
    assert!(css != StatusCode::UNAUTHORIZED && css != StatusCode::SEE_OTHER, "{css}");
}

#[tokio::test]
async fn a_session_from_the_sign_in_page_reads_pages_until_it_signs_out() {
    let state = state(None).await;
    let cookie = sign_in(&state, "Alice", ALICE_PASSWORD).await;
    let a = send(state.clone(), with_cookie(get("/triage"), &cookie)).await;
    assert_eq!(a.status, StatusCode::OK);
    let page = a.text();
    assert!(page.contains("data-testid=\"account\"") && page.contains(">alice<"), "the header names who is signed in");
    assert!(page.contains("data-testid=\"sign-out\""));
    assert_eq!(send(state.clone(), with_cookie(get("/api/instances"), &cookie)).await.status, StatusCode::OK);

    let a = send(state.clone(), with_cookie(post("/signout", ""), &cookie)).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    assert_eq!(location(&a), "/signin?out=1");
    assert!(a.headers[header::SET_COOKIE].to_str().unwrap().contains("Max-Age=0"), "the cookie is cleared");
    let a = send(state.clone(), with_cookie(get("/triage"), &cookie)).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "the ended session reads nothing");
    assert_eq!(location(&a), "/signin?next=%2Ftriage&error=expired");
}

#[tokio::test]
async fn a_wrong_password_or_an_unknown_name_gets_the_same_answer_and_no_session() {
    let state = state(None).await;
    for form in ["name=alice&password=wrong&next=%2Ffleet", "name=nobody&password=wrong&next=%2Ffleet"] {
        let a = send(state.clone(), post("/signin", form)).await;
        assert_eq!(a.status, StatusCode::SEE_OTHER);
        assert_eq!(location(&a), "/signin?error=wrong&next=%2Ffleet", "{form}");
        assert!(a.headers.get(header::SET_COOKIE).is_none(), "{form}");
    }
    let page = send(state.clone(), get("/signin?error=wrong&next=%2Ffleet")).await.text();
    assert!(page.contains("do not match an account"), "{page}");
    // A name or a password over its bound is refused before anything is tried, saying so.
    for form in [
        format!("name={}&password=wrong&next=%2Ffleet", "a".repeat(201)),
        format!("name=alice&password={}&next=%2Ffleet", "p".repeat(1025)),
    ] {
        let a = send(state.clone(), post("/signin", &form)).await;
        assert_eq!(location(&a), "/signin?error=long&next=%2Ffleet");
    }
    let page = send(state.clone(), get("/signin?error=long")).await.text();
    assert!(page.contains("A name is at most 200 characters and a password at most 1024"), "{page}");
    // A next that leaves the site is not followed.
    let a = send(
        state.clone(),
        post(
            "/signin",
            &format!("name=bob&password={}&next=https%3A%2F%2Fevil.example", BOB_PASSWORD.replace(' ', "+")),
        ),
    )
    .await;
    assert_eq!(location(&a), "/");
}

#[tokio::test]
async fn api_tokens_read_and_a_wrong_token_is_refused_even_with_a_session() {
    let state = state(None).await;
    let bearer = |req: Request<Body>, token: &str| {
        let mut req = req;
        req.headers_mut().insert(header::AUTHORIZATION, format!("Bearer {token}").parse().unwrap());
        req
    };
    let a = send(state.clone(), bearer(get("/api/instances"), &USERS.1)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    assert_eq!(send(state.clone(), bearer(get("/metrics"), &USERS.1)).await.status, StatusCode::OK);
    let cookie = sign_in(&state, "alice", ALICE_PASSWORD).await;
    let a = send(state.clone(), with_cookie(bearer(get("/api/instances"), "sdl_0000"), &cookie)).await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    assert!(a.text().contains("not valid"), "{}", a.text());
    assert!(!a.text().contains("sdl_0000"), "the token is not echoed");
}

#[tokio::test]
async fn viewers_read_triage_and_only_admins_acknowledge() {
    let state = state(None).await;
    let alice = sign_in(&state, "alice", ALICE_PASSWORD).await;
    let page = send(state.clone(), with_cookie(get("/triage"), &alice)).await.text();
    assert!(page.contains("data-testid=\"ack-form\""), "the admin may acknowledge");
    assert!(!page.contains("name=\"by\""), "in her own name: no field to say who");
    let field = |name: &str| {
        let at = page.find(&format!("name=\"{name}\" value=\"")).unwrap_or_else(|| panic!("{name} in the form"))
            + name.len()
            + 15;
        sundial_model::links::encode_segment(&page[at..at + page[at..].find('"').unwrap()])
    };
    let form = format!(
        "key={}&episode_ms={}&by=someone+else&note=mine&silence=&back=%2Ftriage",
        field("key"),
        field("episode_ms")
    );

    let bob = sign_in(&state, "bob", BOB_PASSWORD).await;
    let page = send(state.clone(), with_cookie(get("/triage"), &bob)).await.text();
    assert!(page.contains("data-testid=\"problem\""), "the viewer sees the problem");
    assert!(!page.contains("data-testid=\"ack-form\""), "but no form to acknowledge it");
    // Posted from a browser: back to the page, which says why in its own style.
    let mut browser = with_cookie(post("/triage/ack", &form), &bob);
    browser.headers_mut().insert(header::ACCEPT, "text/html,application/xhtml+xml,*/*;q=0.8".parse().unwrap());
    let a = send(state.clone(), browser).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "{}", a.text());
    assert_eq!(location(&a), "/triage?ack_error=forbidden");
    let page = send(state.clone(), with_cookie(get(&location(&a)), &bob)).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text().contains("Only an admin may acknowledge, silence or undo"), "a page, saying why");
    assert!(page.text().contains("data-testid=\"ack-error\""));
    // A maintenance form too, with what was typed.
    let mut browser =
        with_cookie(post("/triage/maintenance", "name=w&reason=r&instance=&duration=1h&back=%2Ftriage"), &bob);
    browser.headers_mut().insert(header::ACCEPT, "text/html".parse().unwrap());
    let a = send(state.clone(), browser).await;
    assert_eq!(location(&a), "/triage?maint_error=forbidden&mw_name=w&mw_reason=r&mw_duration=1h");
    // A client that asks for JSON gets the 403 as JSON.
    let mut client = with_cookie(post("/triage/ack", &form), &bob);
    client.headers_mut().insert(header::ACCEPT, "application/json".parse().unwrap());
    let a = send(state.clone(), client).await;
    assert_eq!(a.status, StatusCode::FORBIDDEN, "{}", a.text());
    assert!(a.text().contains("only an admin"), "{}", a.text());
    let page = send(state.clone(), with_cookie(get("/triage"), &bob)).await.text();
    assert!(!page.contains("data-testid=\"ack-note\""), "nothing was acknowledged");

    let a = send(state.clone(), with_cookie(post("/triage/ack", &form), &alice)).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    assert!(!location(&a).contains("ack_error"), "{}", location(&a));
    let page = send(state.clone(), with_cookie(get("/triage"), &bob)).await.text();
    assert!(page.contains("Acknowledged by alice"), "in the admin's name, whatever the form said");
}

#[tokio::test]
async fn sign_in_attempts_are_limited_per_address() {
    let state = state(None).await;
    let attempt = |addr: &'static str, password: &str| {
        let state = state.clone();
        let form = format!("name=alice&password={}&next=%2F", password.replace(' ', "+"));
        async move { send(state, from(addr, post("/signin", &form))).await }
    };
    for i in 0..10 {
        let a = attempt("192.0.2.7:5000", "guess").await;
        assert_eq!(a.status, StatusCode::SEE_OTHER, "attempt {i}");
    }
    let a = attempt("192.0.2.7:5001", ALICE_PASSWORD).await;
    assert_eq!(a.status, StatusCode::TOO_MANY_REQUESTS, "the 11th attempt waits, right password or not");
    let secs: u64 = a.headers[header::RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!((1..=6).contains(&secs), "{secs}");
    assert!(a.headers.get(header::SET_COOKIE).is_none());
    assert!(a.text().contains("Too many sign-in attempts"));
    let a = attempt("198.51.100.1:5000", ALICE_PASSWORD).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "another address signs in");
    assert!(a.headers.get(header::SET_COOKIE).is_some());
}

#[tokio::test]
async fn a_proxys_user_header_counts_only_from_a_trusted_proxy() {
    let proxy = server::config::ProxyConfig {
        header: header::HeaderName::from_static("x-forwarded-user"),
        trusted: vec!["10.0.0.0/8".parse().unwrap()],
        admins: vec!["Carol".into()],
    };
    let state = state(Some(proxy)).await;
    let as_user = |addr: &'static str, user: &str| {
        let mut req = from(addr, get("/triage"));
        req.headers_mut().insert("x-forwarded-user", user.parse().unwrap());
        req
    };
    let a = send(state.clone(), as_user("10.1.2.3:40000", "carol")).await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.text().contains(">carol<") && a.text().contains("data-testid=\"ack-form\""), "carol is an admin");
    assert!(!a.text().contains("data-testid=\"sign-out\""), "a proxy's user signs out at the proxy");
    let a = send(state.clone(), as_user("10.1.2.3:40000", "dave")).await;
    assert!(a.text().contains(">dave<") && !a.text().contains("data-testid=\"ack-form\""), "dave is a viewer");
    let a = send(state.clone(), as_user("203.0.113.5:40000", "carol")).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "from anyone else the header is ignored");
}

#[tokio::test]
async fn state_changing_requests_from_another_site_are_refused() {
    let state = web::state(Arc::new(crate::support::fixture::FixtureBackend { fail: false, kind: "mssql" }));
    let prefs = |site: Option<&str>, origin: Option<&str>| {
        let mut req = post("/prefs", "theme=dark&back=%2F");
        req.headers_mut().insert(header::HOST, "localhost:3000".parse().unwrap());
        if let Some(s) = site {
            req.headers_mut().insert("sec-fetch-site", s.parse().unwrap());
        }
        if let Some(o) = origin {
            req.headers_mut().insert(header::ORIGIN, o.parse().unwrap());
        }
        req
    };
    let status = |req| {
        let state = state.clone();
        async move { send(state, req).await.status }
    };
    assert_eq!(status(prefs(Some("cross-site"), Some("https://evil.example"))).await, StatusCode::FORBIDDEN);
    assert_eq!(status(prefs(Some("same-site"), Some("https://other.localhost"))).await, StatusCode::FORBIDDEN);
    assert_eq!(
        status(prefs(None, Some("https://evil.example"))).await,
        StatusCode::FORBIDDEN,
        "an old browser: Origin"
    );
    assert_eq!(status(prefs(Some("same-origin"), Some("http://localhost:3000"))).await, StatusCode::SEE_OTHER);
    assert_eq!(status(prefs(None, Some("http://localhost:3000"))).await, StatusCode::SEE_OTHER);
    // The review's finding: the same host and port in another scheme is another origin.
    assert_eq!(
        status(prefs(None, Some("https://localhost:3000"))).await,
        StatusCode::FORBIDDEN,
        "https is not Sundial's"
    );
    assert_eq!(status(prefs(None, Some("ftp://localhost:3000"))).await, StatusCode::FORBIDDEN);
    assert_eq!(status(prefs(None, None)).await, StatusCode::SEE_OTHER, "not a browser (curl): nothing to forge");
    let ack = send(state.clone(), {
        let mut r = post("/triage/ack", "key=k&episode_ms=0&note=n&back=%2F");
        r.headers_mut().insert("sec-fetch-site", "cross-site".parse().unwrap());
        r
    })
    .await;
    assert_eq!(ack.status, StatusCode::FORBIDDEN);
    // Behind a proxy that rewrites Host, the public URL's origin is trusted.
    let mut req = post("/prefs", "theme=dark&back=%2F");
    req.headers_mut().insert(header::HOST, "127.0.0.1:3000".parse().unwrap());
    req.headers_mut().insert(header::ORIGIN, "https://sundial.corp".parse().unwrap());
    let a = send_to(state.clone(), Some("https://sundial.corp/"), req).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    // Reading is never refused for it.
    let mut req = get("/api/health");
    req.headers_mut().insert("sec-fetch-site", "cross-site".parse().unwrap());
    assert_eq!(send(state, req).await.status, StatusCode::OK);
}

#[test]
fn the_users_file_is_checked_and_its_errors_name_the_file_and_line() {
    let hash = server::auth::hash_password("pw").unwrap();
    let cases = [
        ("[[user]]\nname = \"a\"\npassword_hash = \"plain\"\n", 1, "not a PHC hash string"),
        (
            &*format!("[[user]]\nname = \"a\"\nrole = \"root\"\npassword_hash = \"{hash}\"\n"),
            1,
            "must be \"admin\" or \"viewer\"",
        ),
        (
            &*format!(
                "\n[[user]]\nname = \"a\"\npassword_hash = \"{hash}\"\n[[user]]\nname = \"A\"\npassword_hash = \"{hash}\"\n"
            ),
            5,
            "listed twice",
        ),
        ("[[token]]\nname = \"t\"\nsha256 = \"abc\"\n", 1, "64 hex digits"),
        ("# nobody\n", 1, "nobody could sign in"),
        ("[[user]]\nname = \"a\"\npasword_hash = \"x\"\n", 3, "unknown field"),
    ];
    for (text, line, says) in cases {
        let e = Accounts::parse(text, "/etc/sundial/users.toml").expect_err(text).to_string();
        assert!(e.starts_with(&format!("/etc/sundial/users.toml:{line}: ")), "{e}");
        assert!(e.contains(says), "{e}");
        assert!(!e.contains(&hash), "no hash in a message: {e}");
    }
}

#[test]
fn the_fleet_files_auth_section_is_checked() {
    let bad = [
        ("[auth]\nproxy_header = \"X-User\"\n", "needs trusted_proxies"),
        ("[auth]\nproxy_header = \"X-User\"\ntrusted_proxies = [\"10.0.0.0/33\"]\n", "not an address or a network"),
        ("[auth]\ntrusted_proxies = [\"10.0.0.1\"]\n", "set users_file"),
        ("[auth]\nsession = \"soon\"\nusers_file = \"u.toml\"\n", "auth.session"),
        ("[auth]\n", "set users_file"),
    ];
    for (text, says) in bad {
        let e = server::config::parse(text, "/etc/sundial/fleet.toml").expect_err(text).to_string();
        assert!(e.starts_with("/etc/sundial/fleet.toml:"), "{e}");
        assert!(e.contains(says), "{text}: {e}");
    }
    let ok = server::config::parse(
        "[auth]\nusers_file = \"users.toml\"\nproxy_header = \"X-Forwarded-User\"\ntrusted_proxies = [\"127.0.0.1\", \"10.0.0.0/8\"]\n",
        "/etc/sundial/fleet.toml",
    )
    .unwrap();
    let auth = ok.auth.expect("[auth]");
    assert_eq!(
        auth.users_file.as_deref(),
        Some(std::path::Path::new("/etc/sundial/users.toml")),
        "beside the fleet file"
    );
    assert_eq!(auth.proxy.expect("a proxy").trusted.len(), 2);
}

#[test]
fn off_loopback_without_sign_in_sundial_refuses_to_start_and_says_why() {
    let o = sundial(&["serve", "--addr", "0.0.0.0:0"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("will not serve 0.0.0.0:0 without sign-in") && e.contains("--users"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("users.toml");
    std::fs::write(&users, "[[user]]\nname = \"a\"\npassword_hash = \"nope\"\n").unwrap();
    let o = sundial(&["serve", "--addr", "0.0.0.0:0", "--users", users.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("users.toml:1: user \"a\": password_hash is not a PHC hash string"), "{}", stderr(&o));
}

#[test]
fn hash_password_and_new_token_write_what_the_users_file_takes() {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sundial"))
        .arg("hash-password")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"s3cret pass\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let hash = String::from_utf8(o.stdout).unwrap().trim().to_owned();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    let o = sundial(&["new-token", "grafana", "--role", "admin"]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let token = out.lines().nth(1).unwrap().trim_start_matches("# ").to_owned();
    let text = format!("[[user]]\nname = \"u\"\npassword_hash = \"{hash}\"\n{out}");
    let accounts = Accounts::parse(&text, "users.toml").expect("what the commands print is a users file");
    assert_eq!(accounts.check_password("u", "s3cret pass").map(|u| u.name.clone()), Some("u".into()));
    assert!(accounts.check_password("u", "s3cret pas").is_none());
    assert_eq!(
        accounts.token(&token).map(|t| (t.name.clone(), t.role)),
        Some(("grafana".into(), sundial_model::Role::Admin))
    );
}

#[tokio::test]
async fn a_link_from_another_site_asks_again_from_this_one_so_the_session_comes_along() {
    let state = state(None).await;
    let mut req = get("/jobs/3?instance=GONE&at=2026-11-22T10:00:00Z");
    req.headers_mut().insert("sec-fetch-site", "cross-site".parse().unwrap());
    req.headers_mut().insert("sec-fetch-mode", "navigate".parse().unwrap());
    let a = send(state.clone(), req).await;
    assert_eq!(a.status, StatusCode::OK);
    let page = a.text();
    assert!(
        page.contains("http-equiv=\"refresh\" content=\"0;url=/jobs/3?instance=GONE&amp;at=2026-11-22T10:00:00Z\""),
        "{page}"
    );
    assert!(!page.contains("GONE<") && !page.contains("signin"), "nothing of the fleet, no sign-in yet: {page}");
    // Asked again from this site without a session: the sign-in page.
    let mut req = get("/jobs/3?instance=GONE");
    req.headers_mut().insert("sec-fetch-site", "same-origin".parse().unwrap());
    req.headers_mut().insert("sec-fetch-mode", "navigate".parse().unwrap());
    assert_eq!(send(state, req).await.status, StatusCode::SEE_OTHER);
}
