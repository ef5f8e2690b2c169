//! The generic table reader (`sources::tables`) against MariaDB 10.11 as the designs create
//! tables there: times keep every fractional digit their column has (DATETIME(3), DATETIME(6)),
//! a table whose name differs in case from the design's is found (MariaDB on Linux compares
//! table names case-sensitively), and a column the table lacks is an error naming it.
use crate::support::servers::{TestServer, port};
use server::sources::SourceError;
use server::sources::tables::{self, Col, TablesDb, text};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_times_keep_their_fraction_and_names_resolve_by_case() {
    let server = TestServer::mariadb("sundial-tables-maria-", port::TABLES_MARIA);
    let root = server.maria_root().await;
    for sql in [
        "CREATE DATABASE sched",
        "CREATE TABLE sched.Job (job_id INT NOT NULL, Job_Name VARCHAR(50), started DATETIME(6), finished DATETIME(3), plain DATETIME, flag BIT(1))",
        "INSERT INTO sched.Job VALUES (1, 'load', '2026-03-01 10:00:00.123456', '2026-03-01 10:00:01.250', '2026-03-01 10:00:02', b'1')",
        "CREATE USER reader@'127.0.0.1' IDENTIFIED BY 'reader-pw'",
        "GRANT SELECT ON sched.Job TO reader@'127.0.0.1'",
    ] {
        sqlx::query(sql).execute(&root).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let url = format!("mysql://reader:reader-pw@127.0.0.1:{}/sched", port::TABLES_MARIA);
    let mut db = TablesDb::MySql(server::sources::connect::mysql_url(&url, Duration::from_secs(5)).await.unwrap());
    let cols = [
        Col::Plain("job_id"),
        Col::Plain("job_name"),
        Col::Time("started"),
        Col::Time("finished"),
        Col::Time("plain"),
        Col::Plain("flag"),
    ];
    let tail = format!(
        "WHERE {} >= {} ORDER BY {}",
        tables::column(&db, "started"),
        tables::time_literal(&db, chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap().and_hms_opt(0, 0, 0).unwrap()),
        tables::column(&db, "job_id")
    );
    let rows =
        tables::read(&mut db, "job", &cols, &tail).await.expect("`job` finds `Job`, `job_name` finds `Job_Name`");
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(text(r, "job_name"), Some("load"));
    let at = |c: &str| tables::wall_clock(text(r, c).unwrap()).unwrap().format("%H:%M:%S%.f").to_string();
    assert_eq!(at("started"), "10:00:00.123456", "DATETIME(6) keeps its microseconds");
    assert_eq!(at("finished"), "10:00:01.250", "DATETIME(3) keeps its milliseconds");
    assert_eq!(at("plain"), "10:00:02", "DATETIME has none");
    assert_eq!(text(r, "flag"), Some("1"), "BIT(1) reads as a number, not the byte 0x01");

    let e = tables::read(&mut db, "job", &[Col::Plain("job_id"), Col::Plain("job_owner")], "")
        .await
        .expect_err("no job_owner");
    assert!(
        matches!(&e, SourceError::Missing { object, .. } if object.contains("job_owner") && object.contains("Job")),
        "{e:?}"
    );
}
