//! Two replicas of the real binary over one PostgreSQL store, reading one pg_cron instance on
//! the same (real) PostgreSQL 15: one collects (reads the source), the other serves what it
//! published without reading the source; the collector is killed (SIGKILL) and the other takes
//! the instance over within one poll interval; the history kept in the store has every run
//! once, in one unbroken span, and outlives pg_cron's purge; the killed replica, restarted,
//! follows. Judged by what each replica says of itself (`reads`: its own reads of the source)
//! and by the store; waits are on conditions, with a guard against hanging.
use crate::support::servers::{TestServer, port};
use chrono::{DateTime, Duration as Span, Utc};
use sqlx::{Connection, PgConnection};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How often the instance is read, and how long one read may take.
const POLL_SECS: i64 = 2;
const TIMEOUT_SECS: i64 = 3;
/// Nothing here should take this long.
const GUARD: Duration = Duration::from_secs(90);

/// A replica: the binary serving the fleet file on its own port; killed when dropped.
struct Replica {
    child: Child,
    base: String,
    log: std::path::PathBuf,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn start(config: &std::path::Path, log: &std::path::Path) -> Replica {
    let port = free_port();
    let path = log.to_owned();
    let log = std::fs::File::create(log).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_sundial"))
        .args(["serve", "--config", config.to_str().unwrap(), "--addr", &format!("127.0.0.1:{port}")])
        .env("SUNDIAL_LOG", "info")
        .env("LEPTOS_OUTPUT_NAME", "sundial")
        .env("LEPTOS_SITE_ROOT", "target/site")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start sundial");
    Replica { child, base: format!("http://127.0.0.1:{port}"), log: path }
}

/// The instance "PG" as `replica` reports it (`None` while it does not answer).
async fn instance(replica: &Replica) -> Option<serde_json::Value> {
    let res = reqwest::get(format!("{}/api/instances", replica.base)).await.ok()?;
    let v: serde_json::Value = res.json().await.ok()?;
    v["instances"].as_array()?.iter().find(|i| i["name"] == "PG").cloned()
}

fn reads(i: &serde_json::Value) -> u64 {
    i["reads"].as_u64().unwrap_or_default()
}

/// Wait until `replica`'s "PG" satisfies `ok`; returns it.
async fn until(replica: &Replica, what: &str, ok: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let t0 = Instant::now();
    loop {
        if let Some(i) = instance(replica).await
            && ok(&i)
        {
            return i;
        }
        if t0.elapsed() > GUARD {
            let log = std::fs::read_to_string(&replica.log).unwrap_or_default();
            panic!("{}: still waiting for {what}: {:?}\nits log:\n{log}", replica.base, instance(replica).await);
        }
        tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition
    }
}

/// Wait until `replica` serves the job (over the last 7 days) as `ok` says; returns it. Pages
/// and the API answer one render behind a new read (`page_cache`), hence a wait.
async fn until_job(replica: &Replica, what: &str, ok: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let t0 = Instant::now();
    loop {
        let v: serde_json::Value =
            reqwest::get(format!("{}/api/instances/PG/jobs?days=7", replica.base)).await.unwrap().json().await.unwrap();
        if ok(&v["jobs"][0]) {
            return v["jobs"][0].clone();
        }
        assert!(t0.elapsed() < GUARD, "{}: still waiting for {what}: {v}", replica.base);
        tokio::time::sleep(Duration::from_millis(100)).await; // re-checks the condition
    }
}

/// Wait until `replica` serves `n` runs of the job.
async fn until_runs(replica: &Replica, n: u64, what: &str) {
    until_job(replica, what, |j| j["counts"]["runs"] == n).await;
}

async fn add_runs(db: &mut PgConnection, job: i64, starts: &[DateTime<Utc>]) {
    for start in starts {
        sqlx::query(
            "INSERT INTO cron.job_run_details (jobid, job_pid, database, username, command, status, return_message, \
             start_time, end_time) VALUES ($1, 100, 'postgres', 'postgres', 'SELECT 1', 'succeeded', '1 row', $2, $3)",
        )
        .bind(job)
        .bind(start)
        .bind(*start + Span::seconds(20))
        .execute(&mut *db)
        .await
        .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_replica_takes_over_a_killed_collector_within_a_poll_and_the_history_has_no_gap_or_double() {
    let pg = TestServer::postgres("sundial-replicas-", port::REPLICAS_PG);
    let mut db = PgConnection::connect(&pg.pg_url("postgres")).await.unwrap();
    for sql in ["CREATE EXTENSION IF NOT EXISTS pg_cron", "CREATE DATABASE sundial_store"] {
        sqlx::query(sql).execute(&mut db).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // A job pg_cron will not fire during the test (January 1st); its runs are written here.
    let job: i64 =
        sqlx::query_scalar("SELECT cron.schedule('rollup', '0 3 1 1 *', 'SELECT 1')").fetch_one(&mut db).await.unwrap();
    let now = Utc::now();
    let hourly: Vec<DateTime<Utc>> = (1..=48).rev().map(|h| now - Span::hours(h)).collect();
    add_runs(&mut db, job, &hourly).await;

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fleet.toml");
    let p = port::REPLICAS_PG;
    std::fs::write(
        &config,
        format!(
            "store = \"postgres://postgres@127.0.0.1:{p}/sundial_store\"\n\n\
             [[instance]]\nname = \"PG\"\nkind = \"pg_cron\"\nhost = \"127.0.0.1\"\nport = {p}\nuser = \"postgres\"\n\
             database = \"postgres\"\npoll_interval = \"{POLL_SECS}s\"\ntimeout = \"{TIMEOUT_SECS}s\"\n"
        ),
    )
    .unwrap();

    // A starts first and collects; B follows: it serves A's reading and never reads the source.
    let a = start(&config, &dir.path().join("a.log"));
    until(&a, "A's first read", |i| reads(i) >= 1 && i["state"] == "Ok").await;
    let b = start(&config, &dir.path().join("b.log"));
    until(&b, "B taking in A's reading", |i| i["state"] == "Ok" && i["jobs"] == 1).await;
    let a_before = reads(&instance(&a).await.unwrap());
    until(&a, "three more reads by A", |i| reads(i) >= a_before + 3).await;
    let followed = instance(&b).await.unwrap();
    assert_eq!(reads(&followed), 0, "B never read the source while A held the lease: {followed}");
    until_runs(&b, 48, "B serves A's reading").await;
    until_runs(&a, 48, "A serves its own").await;

    // Two more runs, then A dies without a word.
    add_runs(&mut db, job, &[now - Span::minutes(20), now - Span::minutes(10)]).await;
    drop(a);
    let killed = Utc::now();
    until(&b, "B taking over", |i| reads(i) >= 1).await;
    let mut store = PgConnection::connect(&format!("postgres://postgres@127.0.0.1:{p}/sundial_store")).await.unwrap();
    let (replica, took_over_us): (String, i64) =
        sqlx::query_as("SELECT replica, updated_us FROM shared_read WHERE instance = 'PG'")
            .fetch_one(&mut store)
            .await
            .unwrap();
    let took_over = DateTime::from_timestamp_micros(took_over_us).unwrap();
    let bound = Span::seconds(POLL_SECS + TIMEOUT_SECS);
    eprintln!(
        "replicas: B ({replica}) published its first read {} ms after A was killed",
        (took_over - killed).num_milliseconds()
    );
    assert!(
        took_over - killed <= bound,
        "B read and published within one poll interval (plus the read's timeout) of A's death: {} ms",
        (took_over - killed).num_milliseconds()
    );
    until(&b, "B's second read", |i| reads(i) >= 2).await;
    until_runs(&b, 50, "the runs made while A was dying are there").await;

    // The store's history: every run once, in one unbroken span.
    let (kept, distinct): (i64, i64) =
        sqlx::query_as("SELECT count(*), count(DISTINCT start_us) FROM kept_run WHERE instance = 'PG'")
            .fetch_one(&mut store)
            .await
            .unwrap();
    assert_eq!((kept, distinct), (50, 50), "each run kept once, by whichever replica read it");
    let spans: i64 =
        sqlx::query_scalar("SELECT count(*) FROM kept_span WHERE instance = 'PG'").fetch_one(&mut store).await.unwrap();
    assert_eq!(spans, 1, "A's reads and B's join into one span: no gap");
    // What B publishes carries no run the store keeps: A (and any other) reads those from it.
    let published: String =
        sqlx::query_scalar("SELECT good FROM shared_read WHERE instance = 'PG'").fetch_one(&mut store).await.unwrap();
    let published: serde_json::Value = serde_json::from_str(&published).unwrap();
    assert_eq!(published["runs_in_store"], true);
    assert_eq!(published["input"]["jobs"][0]["runs"], serde_json::json!([]), "{published}");

    // pg_cron's history purged: B serves it from the store.
    sqlx::query("DELETE FROM cron.job_run_details WHERE start_time < $1")
        .bind(now - Span::hours(1))
        .execute(&mut db)
        .await
        .unwrap();
    let job = until_job(&b, "B reading the purged table", |j| j["scheduler_history_from"].is_string()).await;
    assert_eq!(job["counts"]["runs"], 50, "the purged runs come from Sundial's store: {job}");

    // A comes back: B holds the lease, so A follows and serves the same.
    let a = start(&config, &dir.path().join("a2.log"));
    until(&a, "A, back, taking in B's reading", |i| i["state"] == "Ok" && i["jobs"] == 1).await;
    let b_reads = reads(&instance(&b).await.unwrap());
    until(&b, "two more reads by B", |i| reads(i) >= b_reads + 2).await;
    assert_eq!(reads(&instance(&a).await.unwrap()), 0, "A, back, does not read what B collects");
    until_runs(&a, 50, "A, back, serves the same").await;
}

/// Who collects each of `names` now, by `a` and `b` (asking both, as their pollers do).
async fn collectors(
    a: &server::replicas::Replicas,
    b: Option<&server::replicas::Replicas>,
    names: &[&str],
) -> (usize, usize) {
    let (mut by_a, mut by_b) = (0, 0);
    for n in names {
        let took_a = a.collects(n, false).await;
        let took_b = match b {
            Some(b) => b.collects(n, false).await,
            None => false,
        };
        assert!(!(took_a && took_b), "{n} is collected by both replicas");
        by_a += usize::from(took_a);
        by_b += usize::from(took_b);
    }
    (by_a, by_b)
}

/// Replicas share the fleet out: one alone collects every instance; a second one, once it is
/// counted, gets half (the first gives them up as its pollers come round, the second takes
/// them); an instance nobody has read for too long is taken whatever the share; the replica
/// left alone takes everything again. Never an instance collected by both.
#[tokio::test(flavor = "multi_thread")]
async fn replicas_share_the_fleet_and_the_one_left_takes_it_all() {
    use server::replicas::Replicas;
    use server::store::{Store, StoreAt};
    let pg = TestServer::postgres("sundial-shares-", port::SHARES_PG);
    let mut db = PgConnection::connect(&pg.pg_url("postgres")).await.unwrap();
    sqlx::query("CREATE DATABASE sundial_store").execute(&mut db).await.unwrap();
    let at = StoreAt::Postgres(format!("postgres://postgres@127.0.0.1:{}/sundial_store", port::SHARES_PG));
    let store = Store::open_at(&at).await.expect("the store, migrated");
    let names = ["I1", "I2", "I3", "I4", "I5", "I6", "I7"];
    let a = Replicas::over(&store).expect("a shared store");
    a.set_fleet_size(names.len());
    assert_eq!(collectors(&a, None, &names).await, (7, 0), "alone, it collects everything");

    let b = Replicas::over(&store).expect("a shared store");
    b.set_fleet_size(names.len());
    let t0 = Instant::now();
    let mut shared = (0, 0);
    while shared != (4, 3) {
        assert!(t0.elapsed() < GUARD, "the second replica never got its share: {shared:?}");
        shared = collectors(&a, Some(&b), &names).await;
        assert_eq!(shared.0 + shared.1, names.len(), "every instance has a collector: {shared:?}");
        tokio::time::sleep(Duration::from_millis(100)).await; // re-checks the condition
    }
    assert_eq!(collectors(&a, Some(&b), &names).await, (4, 3), "the shares hold");

    // The second goes (its session ends, its leases and its presence with it).
    drop(b);
    let free: Vec<&str> = {
        let mut free = Vec::new();
        for n in names {
            if !a.collects(n, false).await {
                free.push(n);
            }
        }
        free
    };
    // Before it has counted again, an instance nobody read for too long is taken (once the
    // server has ended the other's session), its share full or not.
    // (Unless it counted the live replicas again just then: it then takes them anyway.)
    assert!(free.len() <= 3, "at its share, it takes no more: {free:?}");
    let t0 = Instant::now();
    while let Some(first) = free.first()
        && !a.collects(first, true).await
    {
        assert!(t0.elapsed() < GUARD, "an overdue instance is never taken");
        tokio::time::sleep(Duration::from_millis(100)).await; // re-checks the condition
    }
    let t0 = Instant::now();
    loop {
        let (by_a, _) = collectors(&a, None, &names).await;
        if by_a == names.len() {
            break;
        }
        assert!(t0.elapsed() < GUARD, "the replica left alone collects {by_a} of {}", names.len());
        tokio::time::sleep(Duration::from_millis(100)).await; // re-checks the condition
    }
}
