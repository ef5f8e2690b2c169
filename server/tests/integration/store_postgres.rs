//! Sundial's store on a real PostgreSQL 15 (`store = "postgres://…"`), as two replicas share it:
//! opening migrates (twice is harmless); MySQL's samples and job states read back as written;
//! an episode first seen and acknowledged by one replica is the other's too, with its note;
//! what one replica's alerts sent and queued is what another loads. The SQLite store's own
//! tests (history, tables_job_table, mysql_events_real, triage, alerts) cover the same code on
//! a file: every statement is the same text on both.
use crate::support::servers::{TestServer, port};
use crate::support::t;
use server::alerts::store::AlertStore;
use server::store::{Store, StoreAt};
use server::triage::Keeper;
use std::collections::HashSet;
use sundial_engine::job_table::CycleSample;
use sundial_engine::triage::{Problem, ProblemKind};
use sundial_model::AckForm;

#[tokio::test(flavor = "multi_thread")]
async fn two_replicas_share_samples_episodes_acknowledgements_and_alerts_through_postgresql() {
    use sqlx::Connection;
    let pg = TestServer::postgres("sundial-store-pg-", port::STORE_PG);
    let mut db = sqlx::PgConnection::connect(&pg.pg_url("postgres")).await.unwrap();
    sqlx::query("CREATE DATABASE sundial_store").execute(&mut db).await.unwrap();
    let at = StoreAt::Postgres(format!("postgres://postgres@127.0.0.1:{}/sundial_store", port::STORE_PG));
    let one = Store::open_at(&at).await.expect("migrated");
    let two = Store::open_at(&at).await.expect("migrated already: nothing to do");

    // MySQL events' samples: the last poll that saw each LAST_EXECUTED, the larger kept.
    let polled = t("2026-11-22T12:00:00Z");
    let ran = t("2026-11-22T11:00:00Z");
    one.record("shop", "rollup", Some(ran), polled).await.unwrap();
    two.record("shop", "rollup", Some(ran), polled + chrono::Duration::minutes(1)).await.unwrap();
    one.record("shop", "rollup", Some(ran), polled - chrono::Duration::minutes(5)).await.unwrap();
    let samples = two.samples("shop", "rollup", polled - chrono::Duration::days(1)).await.unwrap();
    assert_eq!(samples.first_seen, Some(polled), "the first poll, kept once");
    assert_eq!(samples.samples, [(ran, polled + chrono::Duration::minutes(1))]);

    // A `job` table row's states: the same state extends, another starts a sample.
    let state = CycleSample { status: Some("idle".into()), cycles: Some(3), ..CycleSample::default() };
    one.record_job("shop", "etl", &state, polled).await.unwrap();
    one.record_job("shop", "etl", &state, polled + chrono::Duration::minutes(1)).await.unwrap();
    let busy = CycleSample { status: Some("running".into()), cycles: Some(4), ..CycleSample::default() };
    two.record_job("shop", "etl", &busy, polled + chrono::Duration::minutes(2)).await.unwrap();
    let states = one.job_samples("shop", "etl", polled - chrono::Duration::days(1)).await.unwrap();
    let seen: Vec<_> = states.iter().map(|s| (s.status.as_deref(), s.first_seen, s.seen_until)).collect();
    assert_eq!(
        seen,
        [
            (Some("idle"), polled, polled + chrono::Duration::minutes(1)),
            (Some("running"), polled + chrono::Duration::minutes(2), polled + chrono::Duration::minutes(2))
        ]
    );
    let (first, watched) = two.job_first("shop", "etl").await.unwrap();
    assert_eq!((first.map(|f| f.cycles), watched), (Some(Some(3)), Some(polled)));

    // Triage: replica one sees a job missing runs first and acknowledges it; replica two,
    // seeing it a minute later, takes in the episode's start and the acknowledgement.
    let problem = Problem {
        kind: ProblemKind::Missed,
        severity: ProblemKind::Missed.severity(),
        instance: "SQL1".into(),
        job: Some(("backup".into(), "Backup".into())),
        since: None,
        at: polled,
        evidence: "3 runs missed".into(),
        sentence: "3 runs missed".into(),
        count: 3,
    };
    let judged: HashSet<String> = ["SQL1".to_owned()].into();
    let a = Keeper::open(Ok(&one)).await;
    let b = Keeper::open(Ok(&two)).await;
    let seen_a = a.observe(vec![(problem.clone(), chrono_tz::UTC.into())], &judged, &judged, polled).await;
    let form = AckForm {
        key: problem.key(),
        episode_ms: seen_a[0].first_seen.timestamp_millis(),
        by: "dana".into(),
        note: "restore test, expected".into(),
        silence: "4h".into(),
        back: String::new(),
    };
    a.acknowledge(&form, &seen_a, polled).await.expect("acknowledged");
    let later = polled + chrono::Duration::minutes(1);
    let seen_b = b.observe(vec![(problem.clone(), chrono_tz::UTC.into())], &judged, &judged, later).await;
    assert_eq!(seen_b[0].first_seen, polled, "the episode began when replica one first saw it");
    assert!(b.is_acknowledged(&seen_b[0], later), "replica one's acknowledgement holds on replica two");
    let rows = b.data(&seen_b, &sundial_model::TriageScope::all(), later, (1, 1, 1));
    let shown = serde_json::to_string(&rows).unwrap();
    assert!(shown.contains("restore test, expected") && shown.contains("dana"), "with its note and author: {shown}");

    // Alerts: what replica one sent and queued is what replica two loads.
    let open = server::alerts::open(&seen_a[0], false, "http://sundial", polled);
    let sent = std::collections::BTreeMap::from([(
        problem.key(),
        server::alerts::decide::Sent {
            episode: polled,
            alerted_at: polled,
            reminded_at: polled,
            max_count: 3,
            last: open,
            thread: Some("a grouped alert's thread".into()),
            // A recovery waiting for successes, through a later episode: kept too.
            ended: Some(polled),
            follows: Some(polled + chrono::TimeDelta::minutes(1)),
        },
    )]);
    let queued = AlertStore::new(Some(one.clone()))
        .commit("oncall", Some(&sent), vec![("MISSED Backup".into(), "{}".into())], polled)
        .await
        .unwrap();
    assert_eq!(queued.len(), 1);
    let (loaded, outbox) = AlertStore::new(Some(two.clone())).load().await.unwrap();
    assert_eq!(loaded.get("oncall"), Some(&sent));
    assert_eq!(outbox["oncall"].iter().map(|q| q.subject.as_str()).collect::<Vec<_>>(), ["MISSED Backup"]);
    AlertStore::new(Some(two.clone())).done(queued[0].id).await.unwrap();
    let (_, outbox) = AlertStore::new(Some(one.clone())).load().await.unwrap();
    assert!(outbox.get("oncall").is_none_or(|q| q.is_empty()), "delivered, gone for both");

    // Changes told: a target starts where the first replica asked; a change told by one
    // replica is not told by the other (it writes nothing), nor listed again.
    use server::store::alerts as told;
    let us = |t: chrono::DateTime<chrono::Utc>| t.timestamp_micros();
    let change = server::store::history::Write {
        changes: vec![("j1".into(), us(polled) + 1, "schedule".into(), "{}".into())],
        ..Default::default()
    };
    server::store::history::write(&one, "SQL1", &change).await.unwrap();
    assert_eq!(told::changes_from(&one, "mail", us(polled)).await.unwrap(), us(polled));
    assert_eq!(told::changes_from(&two, "mail", us(polled) + 99).await.unwrap(), us(polled), "the first one's");
    let rows = told::untold_changes(&two, "mail", us(polled), 10).await.unwrap();
    let keys: Vec<_> = rows.iter().map(told::UntoldRow::key).collect();
    assert_eq!(keys, [("SQL1", "j1", us(polled) + 1, "schedule")]);
    let message = vec![("[CHANGED] SQL1 / j1".to_owned(), "{}".to_owned())];
    let ids = told::commit_changes(&one, "mail", &keys, &message, 0, 100).await.unwrap();
    assert_eq!(ids.map(|i| i.len()), Some(1));
    assert_eq!(told::commit_changes(&two, "mail", &keys, &message, 0, 100).await.unwrap(), None, "told once");
    assert!(told::untold_changes(&two, "mail", us(polled), 10).await.unwrap().is_empty());

    // Maintenance: a window replica one adds (and later ends) is replica two's once it takes
    // in the store, with who and why; nothing is deleted.
    let fleet =
        server::config::parse("[[instance]]\nname = \"SQL1\"\nkind = \"sqlite_demo\"\npath = \"/x\"\n", "fleet.toml")
            .unwrap();
    let book_one = server::maintenance::Book::open(&[], &fleet.instances, Some(one.clone())).await;
    let book_two = server::maintenance::Book::open(&[], &fleet.instances, Some(two.clone())).await;
    let form = sundial_model::triage::MaintenanceForm {
        name: "CU upgrade".into(),
        reason: "SQL Server CU 14".into(),
        instance: "SQL1".into(),
        start: String::new(), // from now: a window from the page never reaches into the past
        duration: "2h".into(),
        ..Default::default()
    };
    book_one.add(&form, "alice", polled).await.unwrap();
    let before = book_two.generation();
    book_two.refresh().await;
    assert!(book_two.generation() > before, "taken in");
    let held = book_two.holding("SQL1", None, polled, polled).expect("the window holds SQL1 now");
    assert_eq!((held.name.as_str(), held.until), ("CU upgrade", t("2026-11-22T14:00:00Z")));
    let listed = book_two.listing(polled);
    assert_eq!(listed[0].added.as_ref().map(|a| a.0.as_str()), Some("alice"));
    let end = sundial_model::triage::MaintenanceEndForm {
        id: listed[0].id.clone(),
        start_ms: listed[0].start_ms,
        why: "done early".into(),
        ..Default::default()
    };
    book_two.end(&end, "bob", polled + chrono::Duration::minutes(5)).await.unwrap();
    book_one.refresh().await;
    let listed = book_one.listing(polled + chrono::Duration::minutes(10));
    assert_eq!(listed[0].state, "ended");
    assert_eq!(listed[0].ended.as_ref().map(|e| (e.0.as_str(), e.2.as_str())), Some(("bob", "done early")));
    assert!(
        book_one
            .holding("SQL1", None, polled, polled + chrono::Duration::minutes(10))
            .is_some_and(|h| h.until == polled + chrono::Duration::minutes(5))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_begun_on_one_replica_holds_on_another_and_signing_out_on_either_ends_it() {
    use server::auth::{Accounts, Auth};
    use sqlx::Connection;
    let pg = TestServer::postgres("sundial-sessions-pg-", port::SESSIONS_PG);
    let mut db = sqlx::PgConnection::connect(&pg.pg_url("postgres")).await.unwrap();
    sqlx::query("CREATE DATABASE sundial_store").execute(&mut db).await.unwrap();
    let at = StoreAt::Postgres(format!("postgres://postgres@127.0.0.1:{}/sundial_store", port::SESSIONS_PG));
    let users = format!(
        "[[user]]\nname = \"alice\"\nrole = \"admin\"\npassword_hash = \"{}\"\n",
        server::auth::hash_password("alice-pw-1").unwrap()
    );
    let replica = async |users: &str| {
        let store = Store::open_at(&at).await.unwrap();
        let accounts = Accounts::parse(users, "users.toml").unwrap();
        Auth::new(accounts, std::time::Duration::from_secs(3600), None).sessions_in(Some(&store))
    };
    let (a, b) = (replica(&users).await, replica(&users).await);
    let id = a.sign_in(None, None, "alice", "alice-pw-1").await.expect("signed in on A").session;
    let on_b = b.by_session(&id).await.expect("the session holds on B");
    assert_eq!((on_b.name.as_str(), on_b.role), ("alice", sundial_model::Role::Admin));
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM session WHERE id_sha256 = $1")
        .bind(&id)
        .fetch_one(&mut sqlx::PgConnection::connect(&at_url(&at)).await.unwrap())
        .await
        .unwrap();
    assert_eq!(stored, 0, "the store keeps the id's digest, never the id");
    // The role is the users file's of the replica answering, at each request: the store
    // keeps who signed in, not what they may do.
    let demoted = replica(&users.replace("\"admin\"", "\"viewer\"")).await;
    assert_eq!(demoted.by_session(&id).await.map(|p| p.role), Some(sundial_model::Role::Viewer));
    let bob_only =
        format!("[[user]]\nname = \"bob\"\npassword_hash = \"{}\"\n", server::auth::hash_password("bob-pw-1").unwrap());
    assert!(replica(&bob_only).await.by_session(&id).await.is_none(), "a removed user is signed out");
    let id = a.sign_in(None, None, "alice", "alice-pw-1").await.expect("signed in again").session;
    b.sign_out(&id).await;
    assert!(a.by_session(&id).await.is_none(), "signed out on B, gone on A");
    assert!(b.by_session("0".repeat(64).as_str()).await.is_none());
}

fn at_url(at: &StoreAt) -> String {
    match at {
        StoreAt::Postgres(url) => url.clone(),
        StoreAt::File(_) => unreachable!("a PostgreSQL store"),
    }
}
