//! Secrets never reach a log, a page, an error or the metrics: the real binary is served with
//! an instance's connection URL, a webhook URL, a user's password and an API token, all made
//! to be used and to fail (a refused connection, a refused webhook, a wrong password, a wrong
//! token), at the debug log level; then everything it printed and answered is searched for them.
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const DB_PASSWORD: &str = "db-pw-7Qx9Zr";
const HOOK_SECRET: &str = "hook-T0k3n-55aa";
const USER_PASSWORD: &str = "user-pw-Lm4Np8";
const WRONG_PASSWORD: &str = "wrong-pw-Hh2Jj3";

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port nobody listens on (bound, then released).
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[tokio::test(flavor = "multi_thread")]
async fn no_secret_reaches_a_log_a_page_an_error_or_the_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let (token, digest) = server::auth::new_token().unwrap();
    let users = dir.path().join("users.toml");
    std::fs::write(
        &users,
        format!(
            "[[user]]\nname = \"alice\"\nrole = \"admin\"\npassword_hash = \"{}\"\n[[token]]\nname = \"scraper\"\nsha256 = \"{digest}\"\n",
            server::auth::hash_password(USER_PASSWORD).unwrap()
        ),
    )
    .unwrap();
    let dead = closed_port();
    let fleet = dir.path().join("fleet.toml");
    std::fs::write(
        &fleet,
        format!(
            "store = {:?}\n[defaults]\npoll_interval = \"2s\"\ntimeout = \"2s\"\n\n\
             [auth]\nusers_file = \"users.toml\"\n\n\
             [[alert]]\nname = \"oncall\"\nurl_env = \"TEST_HOOK_URL\"\ngrace = \"0\"\nmin_severity = \"info\"\n\n\
             [[instance]]\nname = \"PG\"\nkind = \"pg_cron\"\nurl_env = \"TEST_PG_URL\"\n\n\
             [[instance]]\nname = \"SQL\"\nkind = \"mssql\"\nhost = \"127.0.0.1\"\nport = {dead}\nuser = \"sundial\"\n\
             password_env = \"TEST_MSSQL_PASSWORD\"\nencrypt = false\n",
            dir.path().join("store.sqlite").to_string_lossy()
        ),
    )
    .unwrap();
    let port = closed_port();
    let child = Command::new(env!("CARGO_BIN_EXE_sundial"))
        .args(["serve", "--config", fleet.to_str().unwrap(), "--addr", &format!("127.0.0.1:{port}")])
        .env("SUNDIAL_LOG", "debug")
        .env("LEPTOS_OUTPUT_NAME", "sundial")
        .env("TEST_PG_URL", format!("postgres://reader:{DB_PASSWORD}@127.0.0.1:{dead}/postgres"))
        .env("TEST_MSSQL_PASSWORD", DB_PASSWORD)
        .env("TEST_HOOK_URL", format!("http://127.0.0.1:{dead}/hooks/{HOOK_SECRET}"))
        .env("LEPTOS_SITE_ROOT", "target/site")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sundial");
    let mut server = Server(child);
    // Every line printed, as it comes.
    let (tx, rx) = mpsc::channel::<String>();
    for out in [
        Box::new(server.0.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(server.0.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
    }
    drop(tx);
    let mut printed = String::new();
    // Served, both reads failed, and the webhook refused (each waited for as a line, 90 s at most).
    let mut waiting = vec!["Sundial is serving", "instance=PG", "instance=SQL", "alerts: delivery failed"];
    // (The reads are logged as `read failed instance=PG …`.)
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    while !waiting.is_empty() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line =
            rx.recv_timeout(left).unwrap_or_else(|_| panic!("still waiting for {waiting:?}; printed:\n{printed}"));
        waiting.retain(|w| {
            !(line.contains(w) && (w.starts_with("Sundial") || line.contains("fail") || w.starts_with("alerts")))
        });
        printed.push_str(&line);
        printed.push('\n');
    }

    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let mut answered = String::new();
    let mut keep = |what: &str, res: reqwest::Response, body: String| {
        answered.push_str(&format!("{what}: {} {:?}\n{body}\n", res.status(), res.headers()));
    };
    // Sign-ins, right and wrong (the right one's cookie is the session's own secret).
    let signin = |password: &str| {
        http.post(format!("{base}/signin"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("name=alice&password={password}&next=%2Ffleet"))
            .send()
    };
    let res = signin(WRONG_PASSWORD).await.unwrap();
    keep("wrong password", res, String::new());
    let res = signin(USER_PASSWORD).await.unwrap();
    let cookie = res.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
    let session = cookie.split('=').nth(1).unwrap().to_owned();
    for path in [
        "/fleet",
        "/triage",
        "/jobs?instance=PG",
        "/jobs?instance=SQL",
        "/log?days=7",
        "/jobs/1?instance=PG",
        "/timeline?instance=SQL",
    ] {
        let res = http.get(format!("{base}{path}")).header("cookie", &cookie).send().await.unwrap();
        let body = res.text().await.unwrap();
        answered.push_str(&format!("{path}\n{body}\n"));
    }
    for path in [
        "/api/instances",
        "/api/triage",
        "/api/instances/PG/jobs",
        "/api/instances/SQL/jobs",
        "/metrics",
        "/log.csv?days=7",
    ] {
        let res = http.get(format!("{base}{path}")).bearer_auth(&token).send().await.unwrap();
        assert!(res.status().as_u16() < 500 || path.contains("/jobs"), "{path}: {}", res.status());
        let headers = format!("{:?}", res.headers());
        answered.push_str(&format!("{path} {headers}\n{}\n", res.text().await.unwrap()));
    }
    let res = http.get(format!("{base}/api/instances")).bearer_auth(format!("{token}x")).send().await.unwrap();
    assert_eq!(res.status(), 401);
    answered.push_str(&res.text().await.unwrap());
    let res = http.get(format!("{base}/metrics")).header("cookie", &cookie).send().await.unwrap();
    let metrics = res.text().await.unwrap();
    assert!(metrics.contains("sundial_"), "the metrics are served: {metrics}");
    answered.push_str(&metrics);
    let page = answered.clone();
    assert!(page.contains("PG") && page.contains("SQL"), "the pages were read");
    drop(server);
    for line in rx.iter() {
        printed.push_str(&line);
        printed.push('\n');
    }
    assert!(printed.contains("sign-in refused") && printed.contains("signed in"), "{printed}");

    for (what, secret) in [
        ("the database password", DB_PASSWORD),
        ("the webhook URL's secret", HOOK_SECRET),
        ("the user's password", USER_PASSWORD),
        ("a wrong password", WRONG_PASSWORD),
        ("the API token", token.as_str()),
        ("the session", session.as_str()),
    ] {
        assert!(!printed.contains(secret), "{what} is in the log:\n{printed}");
        assert!(!answered.contains(secret), "{what} is in an answer");
    }
    let _ = std::fs::remove_dir_all(dir.path());
}

/// A PostgreSQL store that cannot be reached: Sundial does not start, says which store (its
/// URL without the password) and why, and the password is nowhere in what it printed; a
/// password written in the fleet file's `store` is refused, naming the field.
#[test]
fn the_stores_password_is_never_printed_and_never_taken_from_the_file() {
    const STORE_PASSWORD: &str = "store-pw-Vb6Xc1";
    let dir = tempfile::tempdir().unwrap();
    let dead = closed_port();
    let fleet = dir.path().join("fleet.toml");
    std::fs::write(&fleet, "store_url_env = \"TEST_STORE_URL\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sundial"))
        .args(["serve", "--config", fleet.to_str().unwrap(), "--addr", &format!("127.0.0.1:{}", closed_port())])
        .env("SUNDIAL_LOG", "debug")
        .env("TEST_STORE_URL", format!("postgres://sundial:{STORE_PASSWORD}@127.0.0.1:{dead}/sundial"))
        .output()
        .expect("run sundial");
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "no store, no start: {printed}");
    assert!(printed.contains(&format!("postgres://sundial@127.0.0.1:{dead}/sundial")), "names the store: {printed}");
    assert!(!printed.contains(STORE_PASSWORD), "the store's password is in the output:\n{printed}");

    std::fs::write(&fleet, format!("store = \"postgres://sundial:{STORE_PASSWORD}@db.corp/sundial\"\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sundial"))
        .args(["check-config", "--config", fleet.to_str().unwrap()])
        .output()
        .unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success() && printed.contains("store = postgres://sundial@db.corp/sundial"), "{printed}");
    assert!(printed.contains("secrets never go in the file"), "{printed}");
    assert!(!printed.contains(STORE_PASSWORD), "{printed}");
}
