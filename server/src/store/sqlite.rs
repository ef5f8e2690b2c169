//! A SQLite store's schema, as one ordered list applied at every open ([`migrate_file`]), in
//! one transaction:
//! 1. [`ALWAYS_FIRST`]: the tables every version has (`CREATE TABLE IF NOT EXISTS`);
//! 2. [`STEPS`]: each version's statements, run when the file's `user_version` is older, then
//!    `user_version` set to [`SCHEMA_VERSION`];
//! 3. [`ALWAYS_LAST`]: the tables triage, maintenance and alerts keep, made when missing
//!    (`CREATE TABLE IF NOT EXISTS`, outside the version numbering: they were made by their
//!    keepers when opened, so files of every version may have them or not).
//!
//! A file's `user_version` is its schema's: 0 (event samples only, also job rows' last cycle
//! starts under keys `job …`), 1 (adds `job_sample`; the old job keys' samples are copied into
//! it as states without a counter), 2 (adds `kept_run` and `kept_span`: the history Sundial
//! keeps, see `crate::history`), 3 (adds `kept_event`: the schedulers' log lines kept), 4 (adds
//! `read_mark`: where an incremental source read up to), 5 (indexes `kept_run` by instance and
//! start: the runs pages read back; adds `kept_schedule`: each version of a job's schedules), 6
//! (adds `job_definition` and `job_change`: the history of each job's definition, see
//! `crate::history`).
//! Opening migrates; older files stay readable.
use sqlx::SqlitePool;

/// Made at every open, before the version steps.
pub const ALWAYS_FIRST: [&str; 2] = [
    // One row per event Sundial has seen: when it first saw it.
    "CREATE TABLE IF NOT EXISTS event_watch (instance TEXT NOT NULL, event TEXT NOT NULL, \
     first_seen INTEGER NOT NULL, PRIMARY KEY (instance, event))",
    // One row per distinct LAST_EXECUTED (unix seconds, UTC) and the last poll that saw it.
    "CREATE TABLE IF NOT EXISTS event_sample (instance TEXT NOT NULL, event TEXT NOT NULL, \
     last_executed INTEGER NOT NULL, seen_until INTEGER NOT NULL, \
     PRIMARY KEY (instance, event, last_executed))",
];

/// The version steps, oldest first: `(version, statements)`, run in order when the file's
/// `user_version` is below `version`.
pub const STEPS: [(i64, &[&str]); 6] = [
    (
        1,
        &[
            // Each state of a `job` table row (times in microseconds since the epoch, UTC), with
            // the first and last poll that saw it.
            "CREATE TABLE IF NOT EXISTS job_sample (instance TEXT NOT NULL, job TEXT NOT NULL, \
             first_seen INTEGER NOT NULL, seen_until INTEGER NOT NULL, status TEXT, interval_secs INTEGER, \
             schedule_start INTEGER, runner_start INTEGER, runner_finish INTEGER, cycles INTEGER, \
             last_start INTEGER, last_finish INTEGER, PRIMARY KEY (instance, job, first_seen))",
            // Version 0 kept a job's last cycle starts as event samples (`job …`), each with the last
            // poll that saw it: a state without a counter, first seen (as far as is known) then.
            "INSERT OR IGNORE INTO job_sample (instance, job, first_seen, seen_until, last_start) \
             SELECT instance, event, seen_until * 1000000, seen_until * 1000000, last_executed * 1000000 \
             FROM event_sample WHERE event LIKE 'job %'",
        ],
    ),
    (
        2,
        &[
            // Every run Sundial has read (the engine's `Run` as JSON, its start in microseconds
            // since the epoch, UTC), and the spans in which it read a job's whole history
            // (`crate::history`).
            "CREATE TABLE IF NOT EXISTS kept_run (instance TEXT NOT NULL, job TEXT NOT NULL, start_us INTEGER NOT NULL, \
             run TEXT NOT NULL, PRIMARY KEY (instance, job, start_us))",
            "CREATE TABLE IF NOT EXISTS kept_span (instance TEXT NOT NULL, job TEXT NOT NULL, from_us INTEGER NOT NULL, \
             until_us INTEGER NOT NULL, PRIMARY KEY (instance, job, from_us))",
        ],
    ),
    (
        3,
        &[
            // Every line of a scheduler's own log Sundial has read (the engine's `LogEvent` as
            // JSON, keyed by its instant in microseconds and the SHA-256 of the JSON).
            "CREATE TABLE IF NOT EXISTS kept_event (instance TEXT NOT NULL, at_us INTEGER NOT NULL, digest TEXT NOT NULL, \
             event TEXT NOT NULL, PRIMARY KEY (instance, at_us, digest))",
        ],
    ),
    (
        4,
        &[
            // Where an incremental source's history was read up to (`sources::Mark` as JSON).
            "CREATE TABLE IF NOT EXISTS read_mark (instance TEXT NOT NULL PRIMARY KEY, mark TEXT NOT NULL)",
        ],
    ),
    (
        5,
        &[
            // A window's kept runs across an instance's jobs, by start: what a page reads of the
            // runs held without their words (`crate::held`, `crate::history::kept_runs`).
            "CREATE INDEX IF NOT EXISTS kept_run_by_start ON kept_run (instance, start_us)",
            // Each version of a job's schedules (`{enabled, schedules}` as JSON), from the read that
            // first saw it (microseconds): an edit applies from then on (`crate::history`).
            "CREATE TABLE IF NOT EXISTS kept_schedule (instance TEXT NOT NULL, job TEXT NOT NULL, from_us INTEGER NOT NULL, \
             schedules TEXT NOT NULL, PRIMARY KEY (instance, job, from_us))",
        ],
    ),
    (
        6,
        &[
            // Each job's definition as the last read saw it (`engine::changes::Definition` as
            // JSON); a row with an empty job marks the instance's first read (its baseline).
            "CREATE TABLE IF NOT EXISTS job_definition (instance TEXT NOT NULL, job TEXT NOT NULL, \
             definition TEXT NOT NULL, PRIMARY KEY (instance, job))",
            // Each change Sundial saw of a job's definition (`engine::changes::Change` as JSON),
            // keyed by the read that saw it (microseconds) and its kind: written once.
            "CREATE TABLE IF NOT EXISTS job_change (instance TEXT NOT NULL, job TEXT NOT NULL, seen_us INTEGER NOT NULL, \
             kind TEXT NOT NULL, change TEXT NOT NULL, PRIMARY KEY (instance, job, seen_us, kind))",
            "CREATE INDEX IF NOT EXISTS job_change_by_seen ON job_change (instance, seen_us)",
        ],
    ),
];

/// The schema's version this code writes (the file's `user_version`): the last step's.
pub const SCHEMA_VERSION: i64 = STEPS[STEPS.len() - 1].0;

/// Made at every open, after the version steps, when missing: triage's episodes and
/// acknowledgements (`crate::triage`), maintenance windows added and ended
/// (`crate::maintenance`), alerts sent and queued (`crate::alerts::store`), changes told
/// (`crate::alerts::changes`).
pub const ALWAYS_LAST: [&str; 8] = [
    "CREATE TABLE IF NOT EXISTS triage_open (key TEXT PRIMARY KEY, instance TEXT NOT NULL, of_job INTEGER NOT NULL, \
     first_seen INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS triage_ack (key TEXT PRIMARY KEY, episode INTEGER NOT NULL, severity TEXT NOT NULL, \
     count INTEGER NOT NULL, until INTEGER, note TEXT NOT NULL, by TEXT NOT NULL, at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS maintenance_added (id TEXT PRIMARY KEY, name TEXT NOT NULL, reason TEXT NOT NULL, \
     scope TEXT NOT NULL, zone TEXT NOT NULL, start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, \"by\" TEXT NOT NULL, \
     at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS maintenance_ended (id TEXT NOT NULL, start_ms INTEGER NOT NULL, \"by\" TEXT NOT NULL, \
     at INTEGER NOT NULL, why TEXT NOT NULL, PRIMARY KEY (id, start_ms))",
    "CREATE TABLE IF NOT EXISTS alert_sent (target TEXT NOT NULL, key TEXT NOT NULL, episode INTEGER NOT NULL, \
     alerted_at INTEGER NOT NULL, reminded_at INTEGER NOT NULL, max_count INTEGER NOT NULL, last TEXT NOT NULL, \
     PRIMARY KEY (target, key))",
    "CREATE TABLE IF NOT EXISTS alert_outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, target TEXT NOT NULL, \
     subject TEXT NOT NULL, body TEXT NOT NULL, queued_at INTEGER NOT NULL)",
    // The changes of jobs' definitions told to alert targets (`crate::alerts::changes`): where
    // each target started (microseconds), and each change told, by `job_change`'s key.
    "CREATE TABLE IF NOT EXISTS alert_change_from (target TEXT PRIMARY KEY, from_us INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS alert_change_told (target TEXT NOT NULL, instance TEXT NOT NULL, job TEXT NOT NULL, \
     seen_us INTEGER NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (target, instance, job, seen_us, kind))",
];

/// Create a SQLite store's tables, or bring an older file up to [`SCHEMA_VERSION`], in one
/// transaction (see the module docs).
pub(crate) async fn migrate_file(pool: &SqlitePool) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    for sql in ALWAYS_FIRST {
        sqlx::query(sql).execute(&mut *tx).await?;
    }
    let version: i64 = sqlx::query_scalar("PRAGMA user_version").fetch_one(&mut *tx).await?;
    for (step, statements) in STEPS {
        if version < step {
            for sql in statements {
                sqlx::query(*sql).execute(&mut *tx).await?;
            }
        }
    }
    if version < SCHEMA_VERSION {
        sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA user_version = {SCHEMA_VERSION}"))).execute(&mut *tx).await?;
    }
    for sql in ALWAYS_LAST {
        sqlx::query(sql).execute(&mut *tx).await?;
    }
    tx.commit().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_are_numbered_in_order_from_one() {
        let versions: Vec<i64> = STEPS.iter().map(|s| s.0).collect();
        assert_eq!(versions, (1..=SCHEMA_VERSION).collect::<Vec<_>>());
        assert_eq!(SCHEMA_VERSION, 6, "an existing version-6 file opens unchanged");
    }
}
