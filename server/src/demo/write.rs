//! Writing the demo fleet: simulated off the async threads, then written to SQLite files that
//! each appear complete or not at all: two msdb-shaped files (read back by
//! [`crate::sources::msdb_sqlite`]) and one file of plain tables per other scheduler (read by
//! its own source, through [`crate::sources::tables`]), and the samples Sundial's own store
//! would hold. The writer's SQL lives here, with the demo: the sources only read.
use super::tables::{EventSamples, Table, Val};
use super::{Demo, HISTORY_DAYS, INSTANCE, TIME_ZONE, simulate};
use crate::sources::msdb_rows::{
    ActivityRow, CategoryRow, DemoMeta, HistoryRow, JobRow, JobScheduleRow, LoginRow, ScheduleRow, SessionRow, StepRow,
    format_datetime,
};
use crate::sources::snapshots::Store;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{Sqlite, SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{QueryBuilder, SqlitePool};
use std::fmt;
use std::path::{Path, PathBuf};

/// What `write_demo` wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoSummary {
    /// SQLPROD01's jobs.
    pub jobs: usize,
    /// SQLPROD01's history rows.
    pub history_rows: usize,
    /// SQLPROD01's file.
    pub path: PathBuf,
    pub now: DateTime<Utc>,
    /// The fleet file describing every demo instance (see [`super::fleet`]).
    pub fleet_file: PathBuf,
    /// How many instances the fleet file names (one of them unreachable on purpose).
    pub instances: usize,
}

/// `demo instance SQLPROD01 (America/New_York): 41 jobs, 98765 history rows, now 2026-11-22T12:00:00Z, in /tmp/x.sqlite; …`
impl fmt::Display for DemoSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "demo instance {INSTANCE} ({TIME_ZONE}): {} jobs, {} history rows, now {}, in {}; the demo fleet \
             ({} instances, the others' files beside it): {}",
            self.jobs,
            self.history_rows,
            self.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            self.path.display(),
            self.instances,
            self.fleet_file.display()
        )
    }
}

/// Simulate the demo fleet for `now` and `seed` and write it: SQLPROD01's msdb-shaped file to
/// `path`, every other instance's file beside it ([`super::file_of`]), the samples Sundial's
/// store would hold after a month of polling ([`super::store_of`]; only the demo instances'
/// samples are replaced, acknowledgements stay), and the fleet file ([`super::fleet_file_of`]).
/// Older files are replaced; each file appears complete or not at all. The unreachable
/// instance's file is removed, never written.
pub async fn write_demo(path: &Path, now: DateTime<Utc>, seed: u64) -> anyhow::Result<DemoSummary> {
    use anyhow::Context;
    // The simulations are CPU work (tens of thousands of occurrences): off the async threads.
    // The other instances are written while SQLPROD01's, the longest, is still simulated.
    let prod = tokio::task::spawn_blocking(move || simulate(now, seed));
    let others = tokio::task::spawn_blocking(move || super::others(now, seed));
    let others = others.await.context("simulating the demo fleet")?;
    write_msdb(&super::file_of(path, super::eu::INSTANCE), &others.eu, super::eu::HISTORY_DAYS).await?;
    for (name, tables) in &others.tables {
        let file = super::file_of(path, name);
        write_tables(&file, tables).await.with_context(|| format!("writing the demo's {name} ({})", file.display()))?;
    }
    let gone = super::file_of(path, super::UNREACHABLE);
    match std::fs::remove_file(&gone) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("removing {}, which must stay unreadable", gone.display())),
    }
    let store = super::store_of(path);
    seed_store(&store, &others.samples, now)
        .await
        .with_context(|| format!("writing the demo's samples into Sundial's store {}", store.display()))?;
    let demo = prod.await.context("simulating the demo")?;
    super::changes::plant(&store, &super::changes::planted(&demo, now))
        .await
        .with_context(|| format!("planting the demo's changes in Sundial's store {}", store.display()))?;
    write_msdb(path, &demo, HISTORY_DAYS).await?;
    let fleet_file = super::fleet_file_of(path);
    std::fs::write(&fleet_file, super::fleet_toml(path))
        .with_context(|| format!("writing the demo's fleet file {}", fleet_file.display()))?;
    Ok(DemoSummary {
        jobs: demo.jobs.len(),
        history_rows: demo.history.len(),
        path: path.to_path_buf(),
        now,
        fleet_file,
        instances: super::FLEET.len(),
    })
}

/// Write one msdb-shaped file (`history_days` goes into its meta row).
async fn write_msdb(path: &Path, demo: &Demo, history_days: i64) -> anyhow::Result<()> {
    use anyhow::Context;
    let partial = partial_of(path);
    let pool = create(&partial).await.with_context(|| format!("creating the demo database {}", partial.display()))?;
    let written = async {
        create_schema(&pool).await?;
        insert_meta(&pool, &demo.meta, history_days).await?;
        insert_categories(&pool, &demo.categories).await?;
        insert_logins(&pool, &demo.logins).await?;
        insert_jobs(&pool, &demo.jobs).await?;
        insert_steps(&pool, &demo.steps).await?;
        insert_schedules(&pool, &demo.schedules).await?;
        insert_job_schedules(&pool, &demo.job_schedules).await?;
        insert_history(&pool, &demo.history).await?;
        insert_sessions(&pool, &demo.sessions).await?;
        insert_activity(&pool, &demo.activity).await?;
        finish(&pool).await
    }
    .await;
    pool.close().await;
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e).with_context(|| format!("writing the demo tables of {}", demo.meta.name));
    }
    std::fs::rename(&partial, path).context("moving the finished demo database into place")?;
    Ok(())
}

fn partial_of(path: &Path) -> PathBuf {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    PathBuf::from(partial)
}

/// Write a file of plain tables (a scheduler's own design, see [`super::tables`]): created
/// beside, then moved into place.
pub async fn write_tables(path: &Path, tables: &[Table]) -> Result<(), WriteError> {
    let partial = partial_of(path);
    let pool = create(&partial).await?;
    let written = async {
        for t in tables {
            // Creates one of the scheduler's tables, as its design declares it.
            sqlx::query(sqlx::AssertSqlSafe(t.create)).execute(&pool).await.map_err(sql(t.name, "create"))?;
            insert_rows(&pool, t).await?;
        }
        Ok(())
    }
    .await;
    pool.close().await;
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, path).map_err(WriteError::Io)
}

/// Insert a table's rows, in batches, in one transaction.
async fn insert_rows(pool: &SqlitePool, t: &Table) -> Result<(), WriteError> {
    // Writes the rows of one of the scheduler's tables (names are Sundial's constants).
    let head = format!("INSERT INTO \"{}\" ({}) ", t.name, t.columns.join(", "));
    let mut tx = pool.begin().await.map_err(sql(t.name, "begin writing"))?;
    for chunk in t.rows.chunks(BATCH) {
        let mut qb = QueryBuilder::<Sqlite>::new(head.clone());
        qb.push_values(chunk, |mut b, row| {
            for v in row {
                match v {
                    Val::Null => b.push_bind(None::<String>),
                    Val::Int(i) => b.push_bind(*i),
                    Val::Text(s) => b.push_bind(s.clone()),
                };
            }
        });
        qb.build().execute(&mut *tx).await.map_err(sql(t.name, "insert into"))?;
    }
    tx.commit().await.map_err(sql(t.name, "commit"))
}

/// Sundial's store as a month of polls would have left it for the demo: the samples of the
/// demo instances (the ones whose kind keeps samples) replaced by `samples`, MariaDB's
/// `LAST_EXECUTED` as polled every minute. Acknowledgements and everything else stay.
///
/// Written in one transaction in the store's own layout (what [`Store::record`] writes one
/// poll at a time: `event_watch`, `event_sample`, times in Unix seconds), since a month of
/// polls one transaction each would take seconds.
async fn seed_store(path: &Path, samples: &[EventSamples], now: DateTime<Utc>) -> anyhow::Result<()> {
    let store = Store::open(path).await?;
    let Some(pool) = store.sqlite() else { anyhow::bail!("the demo's store {} is not a SQLite file", path.display()) };
    let mut tx = pool.begin().await?;
    for instance in super::SAMPLED {
        for table in ["event_watch", "event_sample", "job_sample"] {
            // Forgets what an earlier demo (another "now") left for this instance.
            sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table} WHERE instance = ?")))
                .bind(instance)
                .execute(&mut *tx)
                .await?;
        }
    }
    for s in samples {
        // The first poll that saw the event.
        sqlx::query("INSERT INTO event_watch (instance, event, first_seen) VALUES (?, ?, ?)")
            .bind(super::EVENTS_INSTANCE)
            .bind(&s.event)
            .bind(s.first_seen.timestamp())
            .execute(&mut *tx)
            .await?;
        let seen: Vec<&(DateTime<Utc>, DateTime<Utc>)> = s.samples.iter().filter(|(at, _)| *at <= now).collect();
        for chunk in seen.chunks(BATCH) {
            // Each LAST_EXECUTED seen, with the last poll that still saw it.
            let mut qb =
                QueryBuilder::<Sqlite>::new("INSERT INTO event_sample (instance, event, last_executed, seen_until) ");
            qb.push_values(chunk, |mut b, (at, until)| {
                b.push_bind(super::EVENTS_INSTANCE)
                    .push_bind(s.event.clone())
                    .push_bind(at.timestamp())
                    .push_bind(until.timestamp());
            });
            qb.build().execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    pool.close().await;
    Ok(())
}

/// Rows per multi-row `INSERT` (13 columns × 1000 stays far below SQLite's variable limit).
const BATCH: usize = 1000;

/// What can go wrong writing the demo file. Messages name the table and the action; callers
/// add the path as context.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The file could not be created (no permission, not a directory).
    #[error("cannot create the SQLite database: {0}")]
    Open(sqlx::Error),
    /// A statement failed: `action` on `table`.
    #[error("SQLite failed to {action} {table}: {source}")]
    Sql { table: &'static str, action: &'static str, source: sqlx::Error },
    /// Replacing an older demo file failed.
    #[error("cannot replace the old demo file: {0}")]
    Io(std::io::Error),
}

fn sql(table: &'static str, action: &'static str) -> impl FnOnce(sqlx::Error) -> WriteError {
    move |source| WriteError::Sql { table, action, source }
}

/// Create a new, empty database file at `path` for writing the demo (an older file there is
/// replaced). Call [`create_schema`] next.
pub async fn create(path: &Path) -> Result<SqlitePool, WriteError> {
    for p in [path.to_path_buf(), journal_path(path)] {
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(WriteError::Io(e)),
        }
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Delete)
        .synchronous(SqliteSynchronous::Off);
    SqlitePoolOptions::new().max_connections(1).connect_with(options).await.map_err(WriteError::Open)
}

fn journal_path(path: &Path) -> std::path::PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push("-journal");
    s.into()
}

/// The tables and indexes, one statement each, with what each holds.
const SCHEMA: &[(&str, &str)] = &[
    (
        "syscategories",
        // Creates syscategories: job categories (msdb category_id, class 1 = job).
        "CREATE TABLE syscategories (
            category_id INTEGER PRIMARY KEY, category_class INTEGER NOT NULL,
            category_type INTEGER NOT NULL, name TEXT NOT NULL)",
    ),
    (
        "server_principals",
        // Creates server_principals: master's logins (sys.server_principals), which SUSER_SNAME reads.
        "CREATE TABLE server_principals (
            principal_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, sid BLOB NOT NULL UNIQUE,
            type TEXT NOT NULL, type_desc TEXT NOT NULL)",
    ),
    (
        "sysjobs",
        // Creates sysjobs: one row per job; job_id is a uniqueidentifier as GUID text.
        "CREATE TABLE sysjobs (
            job_id TEXT PRIMARY KEY, originating_server_id INTEGER NOT NULL, name TEXT NOT NULL,
            enabled INTEGER NOT NULL, description TEXT, start_step_id INTEGER NOT NULL,
            category_id INTEGER NOT NULL, owner_sid BLOB NOT NULL,
            notify_level_eventlog INTEGER NOT NULL, notify_level_email INTEGER NOT NULL,
            notify_level_netsend INTEGER NOT NULL, notify_level_page INTEGER NOT NULL,
            notify_email_operator_id INTEGER NOT NULL, delete_level INTEGER NOT NULL,
            date_created TEXT NOT NULL, date_modified TEXT NOT NULL, version_number INTEGER NOT NULL)",
    ),
    (
        "sysjobsteps",
        // Creates sysjobsteps: each job's steps, what follows each, their retry settings.
        "CREATE TABLE sysjobsteps (
            job_id TEXT NOT NULL, step_id INTEGER NOT NULL, step_name TEXT NOT NULL,
            subsystem TEXT NOT NULL, command TEXT, database_name TEXT,
            on_success_action INTEGER NOT NULL, on_success_step_id INTEGER NOT NULL,
            on_fail_action INTEGER NOT NULL, on_fail_step_id INTEGER NOT NULL,
            retry_attempts INTEGER NOT NULL, retry_interval INTEGER NOT NULL,
            PRIMARY KEY (job_id, step_id))",
    ),
    (
        "sysschedules",
        // Creates sysschedules: one row per schedule, every frequency column an msdb integer.
        "CREATE TABLE sysschedules (
            schedule_id INTEGER PRIMARY KEY, schedule_uid TEXT NOT NULL,
            originating_server_id INTEGER NOT NULL, name TEXT NOT NULL, owner_sid BLOB NOT NULL,
            enabled INTEGER NOT NULL, freq_type INTEGER NOT NULL, freq_interval INTEGER NOT NULL,
            freq_subday_type INTEGER NOT NULL, freq_subday_interval INTEGER NOT NULL,
            freq_relative_interval INTEGER NOT NULL, freq_recurrence_factor INTEGER NOT NULL,
            active_start_date INTEGER NOT NULL, active_end_date INTEGER NOT NULL,
            active_start_time INTEGER NOT NULL, active_end_time INTEGER NOT NULL,
            date_created TEXT NOT NULL, date_modified TEXT NOT NULL, version_number INTEGER NOT NULL)",
    ),
    (
        "sysjobschedules",
        // Creates sysjobschedules: which job uses which schedule, and the Agent's next run.
        "CREATE TABLE sysjobschedules (
            schedule_id INTEGER NOT NULL, job_id TEXT NOT NULL,
            next_run_date INTEGER NOT NULL, next_run_time INTEGER NOT NULL,
            PRIMARY KEY (job_id, schedule_id))",
    ),
    (
        "sysjobhistory",
        // Creates sysjobhistory: a step_id 0 "(Job outcome)" row per run plus a row per step attempt.
        "CREATE TABLE sysjobhistory (
            instance_id INTEGER PRIMARY KEY, job_id TEXT NOT NULL, step_id INTEGER NOT NULL,
            step_name TEXT NOT NULL, sql_message_id INTEGER NOT NULL, sql_severity INTEGER NOT NULL,
            message TEXT, run_status INTEGER NOT NULL, run_date INTEGER NOT NULL,
            run_time INTEGER NOT NULL, run_duration INTEGER NOT NULL,
            operator_id_emailed INTEGER NOT NULL, operator_id_netsent INTEGER NOT NULL,
            operator_id_paged INTEGER NOT NULL, retries_attempted INTEGER NOT NULL, server TEXT NOT NULL)",
    ),
    (
        "syssessions",
        // Creates syssessions: one row per Agent start (local agent_start_date).
        "CREATE TABLE syssessions (session_id INTEGER PRIMARY KEY, agent_start_date TEXT NOT NULL)",
    ),
    (
        "sysjobactivity",
        // Creates sysjobactivity: per Agent session and job, the latest run requested and its state.
        "CREATE TABLE sysjobactivity (
            session_id INTEGER NOT NULL, job_id TEXT NOT NULL, run_requested_date TEXT,
            run_requested_source TEXT, queued_date TEXT, start_execution_date TEXT,
            last_executed_step_id INTEGER, last_executed_step_date TEXT, stop_execution_date TEXT,
            job_history_id INTEGER, next_scheduled_run_date TEXT,
            PRIMARY KEY (session_id, job_id))",
    ),
    (
        "sundial_demo",
        // Creates sundial_demo: Sundial's own meta row (instance, zone, the demo's now, seed).
        // now_utc NULL makes the file live (read as of each poll: `sources::msdb_sqlite`).
        "CREATE TABLE sundial_demo (
            instance_name TEXT NOT NULL, time_zone TEXT NOT NULL, now_utc TEXT,
            seed INTEGER NOT NULL, history_days INTEGER NOT NULL, generator TEXT NOT NULL)",
    ),
];

/// The indexes, created by [`finish`] once the rows are in (built in one pass, they come out
/// packed: a smaller file than indexes grown row by row).
const INDEXES: &[(&str, &str)] = &[
    (
        "sysjobhistory",
        // Indexes sysjobhistory by job (msdb's nc1), ordered so a job's oldest outcome row is one seek.
        "CREATE INDEX nc1 ON sysjobhistory (job_id, step_id, run_date, run_time)",
    ),
    (
        "sysjobhistory",
        // Indexes outcome rows by local run_date so a window read touches only the window.
        "CREATE INDEX nc_outcome_run_date ON sysjobhistory (step_id, run_date)",
    ),
];

/// Create every table of an empty demo database (the indexes come with [`finish`]).
pub async fn create_schema(pool: &SqlitePool) -> Result<(), WriteError> {
    for (table, statement) in SCHEMA {
        sqlx::query(*statement).execute(pool).await.map_err(sql(table, "create"))?;
    }
    Ok(())
}

/// Run `build`'s multi-row INSERT over `rows` in batches, in one transaction.
async fn insert_batched<T>(
    pool: &SqlitePool,
    table: &'static str,
    head: &'static str,
    rows: &[T],
    mut push: impl FnMut(&mut sqlx::query_builder::Separated<'_, Sqlite, &'static str>, &T),
) -> Result<(), WriteError> {
    let mut tx = pool.begin().await.map_err(sql(table, "begin writing"))?;
    for chunk in rows.chunks(BATCH) {
        let mut qb = QueryBuilder::<Sqlite>::new(head);
        qb.push_values(chunk, |mut b, row| push(&mut b, row));
        qb.build().execute(&mut *tx).await.map_err(sql(table, "insert into"))?;
    }
    tx.commit().await.map_err(sql(table, "commit"))
}

/// Write the meta row.
pub async fn insert_meta(pool: &SqlitePool, meta: &DemoMeta, history_days: i64) -> Result<(), WriteError> {
    // Writes sundial_demo's single row: instance name, zone, the demo's now (UTC), seed.
    sqlx::query("INSERT INTO sundial_demo (instance_name, time_zone, now_utc, seed, history_days, generator) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .bind(meta.name.clone())
        .bind(meta.tz.name().to_owned())
        .bind(meta.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .bind(meta.seed as i64)
        .bind(history_days)
        .bind(format!("sundial {}", env!("CARGO_PKG_VERSION")))
        .execute(pool)
        .await
        .map_err(sql("sundial_demo", "insert into"))?;
    Ok(())
}

/// Write `syscategories` rows (job categories: class 1, local type 1).
pub async fn insert_categories(pool: &SqlitePool, rows: &[CategoryRow]) -> Result<(), WriteError> {
    // Writes syscategories rows.
    insert_batched(
        pool,
        "syscategories",
        "INSERT INTO syscategories (category_id, category_class, category_type, name) ",
        rows,
        |b, r| {
            b.push_bind(r.category_id).push_bind(1_i64).push_bind(1_i64).push_bind(r.name.clone());
        },
    )
    .await
}

/// Write `server_principals` rows: each login, a Windows login (`U`) when its name has a domain,
/// else a SQL login (`S`).
pub async fn insert_logins(pool: &SqlitePool, rows: &[LoginRow]) -> Result<(), WriteError> {
    // Writes server_principals rows (principal_id from 256 on, as CREATE LOGIN numbers them; sa is 1).
    let numbered: Vec<(i64, &LoginRow)> =
        rows.iter().enumerate().map(|(i, r)| (if r.sid == [1] { 1 } else { 256 + i as i64 }, r)).collect();
    insert_batched(
        pool,
        "server_principals",
        "INSERT INTO server_principals (principal_id, name, sid, type, type_desc) ",
        &numbered,
        |b, (id, r)| {
            let windows = r.name.contains('\\');
            b.push_bind(*id)
                .push_bind(r.name.clone())
                .push_bind(r.sid.clone())
                .push_bind(if windows { "U" } else { "S" })
                .push_bind(if windows { "WINDOWS_LOGIN" } else { "SQL_LOGIN" });
        },
    )
    .await
}

/// Write `sysjobs` rows.
pub async fn insert_jobs(pool: &SqlitePool, rows: &[JobRow]) -> Result<(), WriteError> {
    // Writes sysjobs rows (notify/delete levels as sp_add_job's defaults, eventlog on failure).
    insert_batched(
        pool,
        "sysjobs",
        "INSERT INTO sysjobs (job_id, originating_server_id, name, enabled, description, start_step_id, category_id, owner_sid, notify_level_eventlog, notify_level_email, notify_level_netsend, notify_level_page, notify_email_operator_id, delete_level, date_created, date_modified, version_number) ",
        rows,
        |b, r| {
            b.push_bind(r.job_id.clone())
                .push_bind(0_i64)
                .push_bind(r.name.clone())
                .push_bind(i64::from(r.enabled))
                .push_bind(r.description.clone())
                .push_bind(1_i64)
                .push_bind(r.category_id)
                .push_bind(r.owner_sid.clone())
                .push_bind(2_i64)
                .push_bind(r.notify_level_email)
                .push_bind(0_i64)
                .push_bind(0_i64)
                .push_bind(i64::from(r.notify_level_email != 0))
                .push_bind(0_i64)
                .push_bind(format_datetime(r.date_created))
                .push_bind(format_datetime(r.date_modified))
                .push_bind(r.version_number);
        },
    )
    .await
}

/// Write `sysjobsteps` rows.
pub async fn insert_steps(pool: &SqlitePool, rows: &[StepRow]) -> Result<(), WriteError> {
    // Writes sysjobsteps rows.
    insert_batched(
        pool,
        "sysjobsteps",
        "INSERT INTO sysjobsteps (job_id, step_id, step_name, subsystem, command, database_name, on_success_action, on_success_step_id, on_fail_action, on_fail_step_id, retry_attempts, retry_interval) ",
        rows,
        |b, r| {
            b.push_bind(r.job_id.clone())
                .push_bind(r.step_id)
                .push_bind(r.step_name.clone())
                .push_bind(r.subsystem.clone())
                .push_bind(r.command.clone())
                .push_bind(r.database_name.clone())
                .push_bind(r.on_success_action)
                .push_bind(r.on_success_step_id)
                .push_bind(r.on_fail_action)
                .push_bind(r.on_fail_step_id)
                .push_bind(r.retry_attempts)
                .push_bind(r.retry_interval);
        },
    )
    .await
}

/// Write `sysschedules` rows.
pub async fn insert_schedules(pool: &SqlitePool, rows: &[ScheduleRow]) -> Result<(), WriteError> {
    // Writes sysschedules rows, every frequency column as the msdb integer.
    insert_batched(
        pool,
        "sysschedules",
        "INSERT INTO sysschedules (schedule_id, schedule_uid, originating_server_id, name, owner_sid, enabled, freq_type, freq_interval, freq_subday_type, freq_subday_interval, freq_relative_interval, freq_recurrence_factor, active_start_date, active_end_date, active_start_time, active_end_time, date_created, date_modified, version_number) ",
        rows,
        |b, r| {
            let s = &r.schedule;
            b.push_bind(r.schedule_id)
                .push_bind(r.schedule_uid.clone())
                .push_bind(0_i64)
                .push_bind(r.name.clone())
                .push_bind(r.owner_sid.clone())
                .push_bind(s.enabled)
                .push_bind(s.freq_type)
                .push_bind(s.freq_interval)
                .push_bind(s.freq_subday_type)
                .push_bind(s.freq_subday_interval)
                .push_bind(s.freq_relative_interval)
                .push_bind(s.freq_recurrence_factor)
                .push_bind(s.active_start_date)
                .push_bind(s.active_end_date)
                .push_bind(s.active_start_time)
                .push_bind(s.active_end_time)
                .push_bind(format_datetime(r.date_created))
                .push_bind(format_datetime(r.date_created))
                .push_bind(1_i64);
        },
    )
    .await
}

/// Write `sysjobschedules` rows.
pub async fn insert_job_schedules(pool: &SqlitePool, rows: &[JobScheduleRow]) -> Result<(), WriteError> {
    // Writes sysjobschedules rows (job ↔ schedule, with the Agent's next run as local ints).
    insert_batched(
        pool,
        "sysjobschedules",
        "INSERT INTO sysjobschedules (schedule_id, job_id, next_run_date, next_run_time) ",
        rows,
        |b, r| {
            b.push_bind(r.schedule_id)
                .push_bind(r.job_id.clone())
                .push_bind(r.next_run_date)
                .push_bind(r.next_run_time);
        },
    )
    .await
}

/// Write `sysjobhistory` rows (in batches, one transaction).
pub async fn insert_history(pool: &SqlitePool, rows: &[HistoryRow]) -> Result<(), WriteError> {
    // Writes sysjobhistory rows: outcome (step_id 0) and step rows, local run_date/run_time.
    insert_batched(
        pool,
        "sysjobhistory",
        "INSERT INTO sysjobhistory (instance_id, job_id, step_id, step_name, sql_message_id, sql_severity, message, run_status, run_date, run_time, run_duration, operator_id_emailed, operator_id_netsent, operator_id_paged, retries_attempted, server) ",
        rows,
        |b, r| {
            b.push_bind(r.instance_id)
                .push_bind(r.job_id.clone())
                .push_bind(r.step_id)
                .push_bind(r.step_name.clone())
                .push_bind(r.sql_message_id)
                .push_bind(r.sql_severity)
                .push_bind(r.message.clone())
                .push_bind(r.run_status)
                .push_bind(r.run_date)
                .push_bind(r.run_time)
                .push_bind(r.run_duration)
                .push_bind(0_i64)
                .push_bind(0_i64)
                .push_bind(0_i64)
                .push_bind(r.retries_attempted)
                .push_bind(r.server.clone());
        },
    )
    .await
}

/// Write `syssessions` rows.
pub async fn insert_sessions(pool: &SqlitePool, rows: &[SessionRow]) -> Result<(), WriteError> {
    // Writes syssessions rows (one per Agent start, local time).
    insert_batched(pool, "syssessions", "INSERT INTO syssessions (session_id, agent_start_date) ", rows, |b, r| {
        b.push_bind(r.session_id).push_bind(format_datetime(r.agent_start_date));
    })
    .await
}

/// Write `sysjobactivity` rows.
pub async fn insert_activity(pool: &SqlitePool, rows: &[ActivityRow]) -> Result<(), WriteError> {
    // Writes sysjobactivity rows (per session and job: latest requested run, local datetimes).
    insert_batched(
        pool,
        "sysjobactivity",
        "INSERT INTO sysjobactivity (session_id, job_id, run_requested_date, run_requested_source, queued_date, start_execution_date, last_executed_step_id, last_executed_step_date, stop_execution_date, job_history_id, next_scheduled_run_date) ",
        rows,
        |b, r| {
            b.push_bind(r.session_id)
                .push_bind(r.job_id.clone())
                .push_bind(r.run_requested_date.map(format_datetime))
                .push_bind(r.run_requested_source.clone())
                .push_bind(None::<String>)
                .push_bind(r.start_execution_date.map(format_datetime))
                .push_bind(r.last_executed_step_id)
                .push_bind(r.last_executed_step_date.map(format_datetime))
                .push_bind(r.stop_execution_date.map(format_datetime))
                .push_bind(r.job_history_id)
                .push_bind(r.next_scheduled_run_date.map(format_datetime));
        },
    )
    .await
}

/// Index the finished tables and refresh the planner's statistics (after the last insert).
pub async fn finish(pool: &SqlitePool) -> Result<(), WriteError> {
    for (table, statement) in INDEXES {
        sqlx::query(*statement).execute(pool).await.map_err(sql(table, "index"))?;
    }
    // Refreshes the query planner's statistics for the indexes just filled.
    sqlx::query("ANALYZE").execute(pool).await.map_err(sql("sysjobhistory", "analyze"))?;
    Ok(())
}
