//! The changes the demo plants in Sundial's store (`job_change`), as if Sundial had polled
//! SQLPROD01 while a DBA changed it: the user databases' full backup moved two hours later two
//! days before the demo's now, the FTP export disabled five days before, the warehouse
//! statistics job added six days before. Each is written as `engine::changes::Change` records
//! them; the demo's first read is then the baseline (no `job_definition` row is planted), so
//! only these show. What an earlier demo (another now) left of changes is deleted first.
use super::{DISABLED_JOB, Demo, FLEET, INSTANCE};
use chrono::{DateTime, Duration, Utc};
use sundial_engine::changes::{Change, ChangeKind, Value};

/// The job whose schedule the demo moves, and the job it adds.
pub const MOVED_JOB: &str = "DatabaseBackup - USER_DATABASES - FULL";
pub const ADDED_JOB: &str = "Update Statistics - WarehouseDB";

/// The changes planted for `demo` (SQLPROD01) at `now`.
pub fn planted(demo: &Demo, now: DateTime<Utc>) -> Vec<Change> {
    let job = |name: &str| demo.jobs.iter().find(|j| j.name == name);
    let start_time = |job_id: &str| {
        let id = demo.job_schedules.iter().find(|js| js.job_id == job_id)?.schedule_id;
        demo.schedules.iter().find(|s| s.schedule_id == id).map(|s| s.schedule.active_start_time)
    };
    let change = |job_id: &str, name: &str, kind, before, after, ago: Duration| Change {
        job: job_id.to_owned(),
        name: name.to_owned(),
        kind,
        before,
        after,
        seen: now - ago,
        // The scheduler's own time: a few minutes before Sundial's poll saw it.
        modified: Some(now - ago - Duration::minutes(3)),
    };
    let mut out = Vec::new();
    if let Some(j) = job(MOVED_JOB)
        && let Some(t) = start_time(&j.job_id)
    {
        let earlier = (t - 20_000).rem_euclid(240_000);
        out.push(change(
            &j.job_id,
            &j.name,
            ChangeKind::Schedule,
            Some(Value::Text(format!("active_start_time={earlier}"))),
            Some(Value::Text(format!("active_start_time={t}"))),
            Duration::days(2),
        ));
    }
    if let Some(j) = job(DISABLED_JOB) {
        let (before, after) = (Some(Value::Flag(true)), Some(Value::Flag(false)));
        out.push(change(&j.job_id, &j.name, ChangeKind::Enabled, before, after, Duration::days(5)));
    }
    if let Some(j) = job(ADDED_JOB) {
        let after = start_time(&j.job_id).map(|t| Value::Text(format!("active_start_time={t}")));
        out.push(change(&j.job_id, &j.name, ChangeKind::Added, None, after, Duration::days(6)));
    }
    out
}

/// Write `changes` of SQLPROD01 into the demo's store, after deleting every demo instance's
/// kept changes and definitions.
pub async fn plant(store: &std::path::Path, changes: &[Change]) -> anyhow::Result<()> {
    let store = crate::sources::snapshots::Store::open(store).await?;
    let Some(pool) = store.sqlite() else { anyhow::bail!("the demo's store is not a SQLite file") };
    let mut tx = pool.begin().await?;
    for instance in FLEET {
        for sql in ["DELETE FROM job_change WHERE instance = ?", "DELETE FROM job_definition WHERE instance = ?"] {
            sqlx::query(sql).bind(instance).execute(&mut *tx).await?;
        }
    }
    for c in changes {
        sqlx::query("INSERT INTO job_change (instance, job, seen_us, kind, change) VALUES (?, ?, ?, ?, ?)")
            .bind(INSTANCE)
            .bind(&c.job)
            .bind(c.seen.timestamp_micros())
            .bind(c.kind.key())
            .bind(serde_json::to_string(c)?)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    pool.close().await;
    Ok(())
}
