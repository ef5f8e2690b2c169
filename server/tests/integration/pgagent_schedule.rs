//! The engine's port of pgAgent's `pgagent.pga_next_schedule` (`engine::pgagent`) against the
//! real function: `CREATE EXTENSION pgagent` (Debian's pgagent 4.2) on the test PostgreSQL,
//! then 1,200 random schedules, each with its exceptions, asked at several instants in two
//! session time zones (DST transitions among the instants), by both; every answer — a run,
//! NULL, or the error the function raises — must be the same. And the engine's forecast is the
//! chain the agent makes: after each forecast run, the function asked at that run's time
//! answers the next one.
//!
//! The function reads `now()`. Its logic is left as it is: the session's `search_path` puts a
//! schema first whose `now()` returns the instant under test (`pgagent_test.now`), and the
//! function, which names `now()` unqualified and sets no search path, calls that one.
use crate::support::servers::{TestServer, port};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use sqlx::{Connection, PgConnection};
use sundial_engine::pgagent::{self, NextRun, PgAgentException, PgAgentSchedule};
use sundial_engine::{self as engine, Schedule, Window, Zone};

/// A small deterministic generator (xorshift64*), so that a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// `{t,f,…}` of `n` slots, each true with the given chance, or all false (every value).
fn array(rng: &mut Rng, n: usize, all_false: u64, per_slot: u64) -> String {
    let slots: Vec<&str> = if rng.chance(all_false) {
        vec!["f"; n]
    } else {
        let mut v: Vec<&str> = (0..n).map(|_| if rng.below(1000) < per_slot { "t" } else { "f" }).collect();
        if !v.contains(&"t") {
            v[rng.below(n as u64) as usize] = "t";
        }
        v
    };
    format!("{{{}}}", slots.join(","))
}

/// 2024-01-01 .. 2028-01-01, to the second.
fn instant(rng: &mut Rng) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp(1_704_067_200 + rng.below(4 * 365 * 86_400) as i64, 0).expect("in range")
}

fn stamp(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S+00").to_string()
}

/// Instants around the zones' DST transitions (2026), where the function's wall-clock
/// arithmetic meets PostgreSQL's reading of gaps and folds.
const DST_NOWS: &[&str] = &[
    "2026-03-08T06:20:00Z", // New York, before the spring-forward gap
    "2026-03-08T06:59:30Z",
    "2026-11-01T05:10:00Z", // New York, the first pass of the repeated hour
    "2026-11-01T04:59:00Z",
    "2026-03-29T00:30:00Z", // Berlin, before the gap
    "2026-10-25T00:15:00Z", // Berlin, the first pass
    "2026-04-04T15:20:00Z", // Lord Howe's 30-minute fold
    "2026-10-03T15:10:00Z", // Lord Howe's 30-minute gap
    "2026-04-05T02:30:00Z", // Santiago, at midnight
];

const ZONES: &[&str] =
    &["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Santiago", "Asia/Kolkata"];

fn schedule(rng: &mut Rng) -> PgAgentSchedule {
    let start = instant(rng);
    let start = if rng.chance(30) { start - Duration::seconds(start.timestamp() % 3600) } else { start };
    let end = rng.chance(15).then(|| start + Duration::seconds(rng.below(400 * 86_400) as i64));
    let mut exceptions = Vec::new();
    for _ in 0..rng.below(4) {
        let date = NaiveDate::from_ymd_opt(2024, 1, 1).expect("a date") + Duration::days(rng.below(4 * 366) as i64);
        let time = format!("{:02}:{:02}:00", rng.below(24), [0, 15, 30, 45, rng.below(60)][rng.below(5) as usize]);
        let (d, t) = match rng.below(3) {
            0 => (Some(date.to_string()), None),
            1 => (None, Some(time)),
            _ => (Some(date.to_string()), Some(time)),
        };
        exceptions.push(PgAgentException { jexid: None, jexdate: d, jextime: t });
    }
    PgAgentSchedule {
        jscstart: Some(stamp(start)),
        jscend: end.map(stamp),
        jscminutes: Some(array(rng, 60, 30, 60)),
        jschours: Some(array(rng, 24, 40, 150)),
        jscweekdays: Some(array(rng, 7, 60, 400)),
        jscmonthdays: Some(array(rng, 32, 60, 150)),
        jscmonths: Some(array(rng, 12, 75, 500)),
        exceptions,
        ..PgAgentSchedule::default()
    }
}

/// What the real function answers at `now` in the session's zone: the run, NULL, or its error;
/// `None` when it did not answer within the statement timeout (a search that does not end).
async fn real(db: &mut PgConnection, s: &PgAgentSchedule, now: DateTime<Utc>) -> Option<NextRun> {
    let answer: Result<Option<DateTime<Utc>>, sqlx::Error> = sqlx::query_scalar(
        "SELECT pgagent.pga_next_schedule(7, $1::timestamptz, $2::timestamptz, $3::bool[], $4::bool[], $5::bool[], $6::bool[], $7::bool[]) \
           FROM (SELECT set_config('pgagent_test.now', $8, false)) AS clock",
    )
    .bind(s.jscstart.as_deref())
    .bind(s.jscend.as_deref())
    .bind(s.jscminutes.as_deref())
    .bind(s.jschours.as_deref())
    .bind(s.jscweekdays.as_deref())
    .bind(s.jscmonthdays.as_deref())
    .bind(s.jscmonths.as_deref())
    .bind(now.to_rfc3339())
    .fetch_one(&mut *db)
    .await;
    match answer {
        Ok(Some(t)) => Some(NextRun::At(t)),
        Ok(None) => Some(NextRun::Null),
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("57014") => None,
        Err(sqlx::Error::Database(e)) => Some(NextRun::Fails(e.message().to_owned())),
        Err(e) => panic!("asking pga_next_schedule: {e}"),
    }
}

/// The schedule's exceptions as the function's only rows of `pga_exception` (jexscid 7), with
/// the table's triggers and foreign keys off (`session_replication_role = replica`); its
/// unique index on (jexdate, jextime) is kept, so a repeated pair is given once.
async fn put_exceptions(db: &mut PgConnection, s: &mut PgAgentSchedule) {
    sqlx::query("DELETE FROM pgagent.pga_exception").execute(&mut *db).await.expect("clear the exceptions");
    let mut kept: Vec<PgAgentException> = Vec::new();
    for e in &s.exceptions {
        if kept.iter().any(|k| k.jexdate == e.jexdate && k.jextime == e.jextime) {
            continue;
        }
        let id: i32 = sqlx::query_scalar(
            "INSERT INTO pgagent.pga_exception (jexscid, jexdate, jextime) VALUES (7, $1::date, $2::time) RETURNING jexid",
        )
        .bind(e.jexdate.as_deref())
        .bind(e.jextime.as_deref())
        .fetch_one(&mut *db)
        .await
        .expect("insert an exception");
        kept.push(PgAgentException { jexid: Some(id.to_string()), ..e.clone() });
    }
    s.exceptions = kept;
}

#[tokio::test(flavor = "multi_thread")]
async fn pga_next_schedule_is_the_engines() {
    let server = TestServer::postgres("sundial-pgagent-", port::PGAGENT_SCHEDULE_PG);
    let mut db = PgConnection::connect(&server.pg_url("postgres")).await.expect("connect to the test PostgreSQL");
    for sql in [
        "CREATE EXTENSION IF NOT EXISTS pgagent",
        "CREATE SCHEMA pgagent_test",
        "CREATE FUNCTION pgagent_test.now() RETURNS timestamptz LANGUAGE sql VOLATILE \
           AS $$ SELECT current_setting('pgagent_test.now')::timestamptz $$",
        "SET search_path = pgagent_test, pg_catalog, public",
        "SET session_replication_role = replica",
        "SET statement_timeout = '3s'",
    ] {
        sqlx::query(sql).execute(&mut db).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // The clock is the one under test.
    let probe: DateTime<Utc> = sqlx::query_scalar(
        "SELECT now() FROM (SELECT set_config('pgagent_test.now', '2026-03-08 06:20:00+00', false)) AS clock",
    )
    .fetch_one(&mut db)
    .await
    .expect("the test clock");
    assert_eq!(probe, "2026-03-08T06:20:00Z".parse::<DateTime<Utc>>().unwrap());

    let seed = 0x5eed_2026_u64;
    let mut rng = Rng(seed);
    let (mut compared, mut failures, mut timeouts, mut runs, mut nulls, mut errors) = (0, Vec::new(), 0, 0, 0, 0);
    for case in 0..1_200 {
        let mut s = schedule(&mut rng);
        put_exceptions(&mut db, &mut s).await;
        let start: DateTime<Utc> =
            s.jscstart.as_deref().and_then(|t| t.replace("+00", "Z").replace(' ', "T").parse().ok()).expect("jscstart");
        for zone in [ZONES[rng.below(ZONES.len() as u64) as usize], ZONES[rng.below(ZONES.len() as u64) as usize]] {
            sqlx::query("SELECT set_config('TimeZone', $1, false)")
                .bind(zone)
                .execute(&mut db)
                .await
                .expect("set the zone");
            let tz = Zone::from_name(zone).expect("a zone the engine knows");
            let mut nows = vec![
                instant(&mut rng),
                start - Duration::seconds(rng.below(3 * 86_400) as i64),
                start + Duration::seconds(rng.below(40 * 86_400) as i64),
            ];
            nows.push(DST_NOWS[rng.below(DST_NOWS.len() as u64) as usize].parse().expect("an instant"));
            for now in nows {
                let Some(want) = real(&mut db, &s, now).await else {
                    timeouts += 1;
                    continue;
                };
                let (got, _) = pgagent::pga_next_schedule(&s, tz, now);
                compared += 1;
                match &want {
                    NextRun::At(_) => runs += 1,
                    NextRun::Null => nulls += 1,
                    _ => errors += 1,
                }
                if got != want {
                    failures.push(format!(
                        "case {case} (seed {seed:#x}) in {zone} at {now}: engine {got:?}, PostgreSQL {want:?}; {s:?}"
                    ));
                }
            }
        }
    }
    eprintln!(
        "pga_next_schedule: {compared} answers compared ({runs} runs, {nulls} NULL, {errors} errors), {timeouts} timed out"
    );

    // The forecast is the chain the agent makes: after each forecast run, the function asked at
    // that run's time answers the next forecast run (or fails where the forecast says it stops).
    let mut steps = 0;
    for case in 0..150 {
        let mut s = schedule(&mut rng);
        put_exceptions(&mut db, &mut s).await;
        let zone = ZONES[rng.below(ZONES.len() as u64) as usize];
        sqlx::query("SELECT set_config('TimeZone', $1, false)")
            .bind(zone)
            .execute(&mut db)
            .await
            .expect("set the zone");
        let tz = Zone::from_name(zone).expect("a zone the engine knows");
        let from = instant(&mut rng);
        let window = Window::new(from, from + Duration::days(2));
        let f = engine::forecast(1, &Schedule::PgAgent(s.clone()), tz, window);
        let stops = f.diagnostics.iter().any(|d| d.message.contains("fails computing"));
        for (k, o) in f.occurrences.iter().enumerate() {
            let Some(want) = real(&mut db, &s, o.at).await else { continue };
            steps += 1;
            match f.occurrences.get(k + 1) {
                Some(next) => {
                    assert_eq!(want, NextRun::At(next.at), "case {case} in {zone}: the run after {}; {s:?}", o.at)
                }
                None if stops => assert!(
                    matches!(want, NextRun::Fails(_)),
                    "case {case} in {zone}: the chain stops after {}, PostgreSQL {want:?}",
                    o.at
                ),
                None => match want {
                    NextRun::At(t) => {
                        assert!(t >= window.end, "case {case} in {zone}: {t} is missing from the forecast; {s:?}")
                    }
                    NextRun::Null => {}
                    other => panic!(
                        "case {case} in {zone}: after {} PostgreSQL {other:?}, the forecast goes on; {s:?}",
                        o.at
                    ),
                },
            }
        }
    }
    eprintln!("pga_next_schedule: {steps} steps of forecast chains compared");
    assert!(steps > 1_000, "only {steps} steps of the chain compared");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(compared >= 1_200 * 2 * 4 * 9 / 10, "only {compared} answers compared ({timeouts} timed out)");
    assert!(
        runs > compared / 2 && nulls > 0 && errors > 0,
        "{runs} runs, {nulls} NULL, {errors} errors: the cases do not cover the answers"
    );
}
