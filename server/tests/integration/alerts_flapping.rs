//! Alerts that do not flap (`after`, `resolve_after`, quiet hours), each across restarts: one
//! job, `Flaky`, in a `jobactivity` table in SQLite, whose runs the test appends one by one
//! (a run with a stop succeeded; one never stopped, more than an hour before the fixture's now,
//! crashed), read every second as of the fixture's now; the alerter ticks when the test says.
use crate::alerts::{QUICK, at, next, reads_after_now, receiver, start, subjects};
use server::alerts::Alerter;
use sqlx::Connection;
use std::path::Path;

const FLAKY: &str = "Flaky";

/// One run of `Flaky` on the fixture's day (2026-03-07) at `hour`:30 s, succeeded (2 minutes)
/// or crashed (never stopped); the table is made with a week of daily successes at 01:00.
async fn ran(path: &Path, hour: u32, ok: bool) {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path).create_if_missing(true);
    let mut c = sqlx::SqliteConnection::connect_with(&options).await.expect("the table's file");
    let row = |day: u32, hour: u32, ok: bool| {
        let stop = if ok { format!("'2026-03-{day:02} {hour:02}:02:30'") } else { "NULL".to_owned() };
        format!(
            "INSERT INTO jobactivity VALUES ('F{day:02}{hour:02}000-0000-0000-0000-000000000000', '{FLAKY}', \
             '2026-03-{day:02} {hour:02}:00:30', {stop})"
        )
    };
    let mut sql = Vec::new();
    if !path.exists() || std::fs::metadata(path).map(|m| m.len() == 0).unwrap_or(true) {
        sql.push(
            "CREATE TABLE jobactivity (job_id CHAR(36) NOT NULL, job_name VARCHAR(100) NOT NULL, \
             start_execution_date DATETIME NOT NULL, stop_execution_date DATETIME NULL)"
                .to_owned(),
        );
        sql.extend((1..=6).map(|d| row(d, 1, true)));
    }
    sql.push(row(7, hour, ok));
    for s in sql {
        sqlx::query(sqlx::AssertSqlSafe(s.clone())).execute(&mut c).await.unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

/// The fleet file: `Flaky` (daily at 01:00), Sundial's store, and `alerts`.
fn fleet(dir: &Path, alerts: &str) -> server::config::FleetConfig {
    let text = format!(
        "store = {:?}\npublic_url = \"https://sundial.example/\"\n[triage]\nstale_polls = 1000\n\n\
         [[instance]]\nname = \"flaky\"\nkind = \"jobactivity\"\npath = {:?}\ntime_zone = \"UTC\"\npoll_interval = \"1s\"\n\
         [[instance.job]]\nname = \"{FLAKY}\"\nschedule = \"0 1 * * *\"\n\n{alerts}",
        dir.join("store.sqlite").to_string_lossy(),
        dir.join("flaky.sqlite").to_string_lossy(),
    );
    server::config::parse(&text, "fleet.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// A fleet and its alerter over the fleet file (a start, or a restart over the same store).
async fn started(
    config: &server::config::FleetConfig,
) -> (std::sync::Arc<server::fleet::FleetBackend>, std::sync::Arc<Alerter>) {
    let backend = start(config).await;
    let alerter = Alerter::start(backend.clone(), config, "https://sundial.example", QUICK)
        .await
        .expect("the alerts start")
        .expect("alerts are configured");
    assert!(alerter.is_persistent());
    (backend, alerter)
}

const FAILED: &str = "[FAILED] flaky / Flaky";
const RESOLVED: &str = "[RESOLVED FAILED] flaky / Flaky";

#[tokio::test]
async fn a_flapping_job_pages_after_two_failures_in_a_row_and_recovers_after_two_successes_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("flaky.sqlite");
    let (url, mut rx) = receiver(0).await;
    let alerts = format!(
        "[[alert]]\nname = \"after2\"\nurl = \"{url}/after2\"\nkinds = [\"failed\"]\ngrace = \"0\"\nremind = \"0\"\nafter = 2\n\
         [[alert]]\nname = \"resolve2\"\nurl = \"{url}/resolve2\"\nkinds = [\"failed\"]\ngrace = \"0\"\nremind = \"0\"\nresolve_after = 2\n"
    );
    let config = fleet(dir.path(), &alerts);
    // Today's 01:00 run crashed: one failure.
    ran(&table, 1, false).await;
    let (mut backend, mut alerter) = started(&config).await;
    assert_eq!(subjects(&alerter.tick(at(1)).await), [("resolve2", FAILED)], "after = 2 waits for a second");
    let mut minute = 1;
    // Then it flaps: succeeded, crashed, succeeded, crashed, succeeded; Sundial restarts twice.
    for (hour, ok) in [(2, true), (3, false), (4, true), (5, false), (6, true)] {
        if hour == 3 || hour == 5 {
            (backend, alerter) = started(&config).await;
        }
        ran(&table, hour, ok).await;
        reads_after_now(&backend, "flaky").await;
        minute += 1;
        assert_eq!(alerter.tick(at(minute)).await, [], "the run of {hour}:00 (succeeded: {ok}) says nothing");
    }
    // Two failures in a row: after = 2 alerts, once, also after a restart; resolve2's episode
    // simply goes on.
    ran(&table, 7, false).await;
    reads_after_now(&backend, "flaky").await;
    assert_eq!(alerter.tick(at(10)).await, []);
    ran(&table, 8, false).await;
    reads_after_now(&backend, "flaky").await;
    assert_eq!(subjects(&alerter.tick(at(11)).await), [("after2", FAILED)]);
    (backend, alerter) = started(&config).await;
    assert_eq!(alerter.tick(at(12)).await, []);
    // One success: after2 recovers (resolve_after = 1); resolve2 waits, across a restart, for
    // the second.
    ran(&table, 9, true).await;
    reads_after_now(&backend, "flaky").await;
    assert_eq!(subjects(&alerter.tick(at(13)).await), [("after2", RESOLVED)]);
    (backend, alerter) = started(&config).await;
    assert_eq!(alerter.tick(at(14)).await, []);
    ran(&table, 10, true).await;
    reads_after_now(&backend, "flaky").await;
    assert_eq!(subjects(&alerter.tick(at(15)).await), [("resolve2", RESOLVED)]);
    assert_eq!(alerter.tick(at(16)).await, []);

    // What the receiver got, in order per target: one alert and one recovery each.
    let mut got: Vec<(String, String)> = Vec::new();
    for _ in 0..4 {
        let r = next(&mut rx).await;
        got.push((r.path.clone(), r.body["subject"].as_str().unwrap_or_default().to_owned()));
    }
    let of = |target: &str| -> Vec<&str> {
        got.iter().filter(|(p, _)| p.ends_with(target)).map(|(_, s)| s.as_str()).collect()
    };
    assert_eq!(of("/after2"), [FAILED, RESOLVED]);
    assert_eq!(of("/resolve2"), [FAILED, RESOLVED]);
    let resolved = &got.iter().find(|(p, s)| p.ends_with("/resolve2") && s == RESOLVED);
    assert!(resolved.is_some());
    drop(backend);
    assert!(rx.try_recv().is_err(), "nothing else");
}

#[tokio::test]
async fn quiet_hours_hold_an_alert_and_a_recovery_until_they_end_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("flaky.sqlite");
    let (url, mut rx) = receiver(0).await;
    // 13:00-14:00 UTC (the fixture's now is 13:40); only critical problems go through.
    let alerts = format!(
        "[[alert]]\nname = \"night\"\nurl = \"{url}/night\"\nkinds = [\"failed\"]\ngrace = \"0\"\nremind = \"0\"\n\
         quiet = \"13:00-14:00\"\nquiet_severity = \"critical\"\ntime_zone = \"UTC\"\n"
    );
    let config = fleet(dir.path(), &alerts);
    ran(&table, 1, false).await;
    let (_, alerter) = started(&config).await;
    assert_eq!(alerter.tick(at(1)).await, [], "held in quiet hours");
    let (mut backend, mut alerter) = started(&config).await;
    assert_eq!(alerter.tick(at(19)).await, [], "still held after a restart");
    assert_eq!(subjects(&alerter.tick(at(20)).await), [("night", FAILED)], "sent when they end (14:00)");
    assert_eq!(alerter.tick(at(21)).await, []);
    // It succeeds; the recovery is decided in the next day's quiet hours: held, then sent
    // when they end, once, across a restart.
    ran(&table, 2, true).await;
    reads_after_now(&backend, "flaky").await;
    assert_eq!(alerter.tick(at(24 * 60 - 30)).await, [], "13:10 the next day: held");
    (backend, alerter) = started(&config).await;
    assert_eq!(alerter.tick(at(24 * 60 + 19)).await, []);
    assert_eq!(subjects(&alerter.tick(at(24 * 60 + 20)).await), [("night", RESOLVED)]);
    assert_eq!(alerter.tick(at(24 * 60 + 21)).await, []);
    for want in [FAILED, RESOLVED] {
        let r = next(&mut rx).await;
        assert_eq!((r.path.as_str(), r.body["subject"].as_str()), ("/hook/night", Some(want)));
    }
    drop(backend);
    assert!(rx.try_recv().is_err(), "nothing else");
}

#[test]
fn bad_after_resolve_after_and_quiet_hours_name_the_file_line_and_field() {
    let err = |alert: &str| {
        let text = format!("[[instance]]\nname = \"a\"\nkind = \"sqlite_demo\"\npath = \"/x\"\n\n{alert}");
        server::config::parse(&text, "fleet.toml").expect_err("refused").to_string()
    };
    let base = "[[alert]]\nname = \"x\"\nurl_env = \"X\"\n";
    let cases = [
        ("after = 0\n", "fleet.toml:9: alert[0].after = 0: a number of runs in a row, from 1"),
        ("resolve_after = -2\n", "fleet.toml:9: alert[0].resolve_after = -2: a number of runs in a row"),
        (
            "after = 1001\n",
            "fleet.toml:9: alert[0].after = 1001: a number of runs in a row, from 1 (the first: the default) to 1000",
        ),
        (
            "quiet = \"25:00-07:00\"\n",
            "fleet.toml:9: alert[0].quiet = \"25:00-07:00\": not a span of wall clock like \"22:00-07:00\"",
        ),
        ("quiet = \"22:00\"\n", "fleet.toml:9: alert[0].quiet = \"22:00\": not a span of wall clock"),
        ("quiet = \"07:00-07:00\"\n", "fleet.toml:9: alert[0].quiet = \"07:00-07:00\": starts where it ends"),
        (
            "quiet = \"22:00-07:00\"\ntime_zone = \"Mars/Olympus\"\n",
            "fleet.toml:10: alert[0].time_zone = \"Mars/Olympus\": not an IANA time zone",
        ),
        (
            "quiet = \"22:00-07:00\"\nquiet_severity = \"loud\"\n",
            "fleet.toml:10: alert[0].quiet_severity = \"loud\": not critical, error, warning or info",
        ),
        ("quiet_severity = \"error\"\n", "fleet.toml:9: alert[0].quiet_severity = \"error\": only with quiet"),
        ("time_zone = \"UTC\"\n", "fleet.toml:9: alert[0].time_zone = \"UTC\": only with quiet"),
    ];
    for (fields, want) in cases {
        let e = err(&format!("{base}{fields}"));
        assert!(e.starts_with(want), "{fields}: {e}");
    }
    let e = err(&format!("{base}after = \"2\"\n"));
    assert!(e.starts_with("fleet.toml:"), "a wrong type is refused with its line: {e}");

    // Defaults: 1, 1, never quiet; quiet_severity defaults to critical, time_zone to UTC.
    let text = "[[alert]]\nname = \"a\"\nurl_env = \"X\"\n[[alert]]\nname = \"b\"\nurl_env = \"X\"\nafter = 3\n\
                resolve_after = 2\nquiet = \"22:00-07:00\"\ntime_zone = \"Europe/London\"\n";
    let c = server::config::parse(text, "fleet.toml").unwrap();
    let (a, b) = (&c.alerts[0], &c.alerts[1]);
    assert_eq!((a.after, a.resolve_after, a.quiet.is_none()), (1, 1, true));
    assert_eq!((b.after, b.resolve_after), (3, 2));
    let q = b.quiet.as_ref().unwrap();
    assert_eq!((q.passes, q.zone), (sundial_engine::triage::ProblemSeverity::Critical, chrono_tz::Europe::London));
    // 22:30 in London in summer is 21:30 UTC: quiet; 21:30 in London is not.
    assert!(q.covers(crate::support::t("2026-07-01T21:30:00Z")));
    assert!(!q.covers(crate::support::t("2026-07-01T20:30:00Z")));
    assert!(
        q.covers(crate::support::t("2026-07-02T05:59:00Z")) && !q.covers(crate::support::t("2026-07-02T06:00:00Z"))
    );
}
