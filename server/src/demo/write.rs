//! Writing the demo: simulated off the async threads, then written to an msdb-shaped SQLite
//! file that appears complete or not at all.
use super::{HISTORY_DAYS, INSTANCE, TIME_ZONE, simulate};
use crate::sources::msdb_sqlite;
use chrono::{DateTime, Utc};
use std::fmt;
use std::path::{Path, PathBuf};

/// What `write_demo` wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoSummary {
    pub jobs: usize,
    pub history_rows: usize,
    pub path: PathBuf,
    pub now: DateTime<Utc>,
}

/// `demo instance SQLPROD01 (America/New_York): 41 jobs, 98765 history rows, now 2026-11-22T12:00:00Z, in /tmp/x.sqlite`
impl fmt::Display for DemoSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "demo instance {INSTANCE} ({TIME_ZONE}): {} jobs, {} history rows, now {}, in {}",
            self.jobs,
            self.history_rows,
            self.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            self.path.display()
        )
    }
}

/// Simulate the demo for `now` and `seed` and write it to `path` (an older file there is
/// replaced; the file appears complete or not at all).
pub async fn write_demo(path: &Path, now: DateTime<Utc>, seed: u64) -> anyhow::Result<DemoSummary> {
    use anyhow::Context;
    // The simulation is CPU work (tens of thousands of occurrences): off the async threads.
    let demo = tokio::task::spawn_blocking(move || simulate(now, seed)).await.context("simulating the demo")?;
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let pool = msdb_sqlite::create(&partial).await.context("creating the demo database")?;
    let written = async {
        msdb_sqlite::create_schema(&pool).await?;
        msdb_sqlite::insert_meta(&pool, &demo.meta, HISTORY_DAYS).await?;
        msdb_sqlite::insert_categories(&pool, &demo.categories).await?;
        msdb_sqlite::insert_jobs(&pool, &demo.jobs).await?;
        msdb_sqlite::insert_steps(&pool, &demo.steps).await?;
        msdb_sqlite::insert_schedules(&pool, &demo.schedules).await?;
        msdb_sqlite::insert_job_schedules(&pool, &demo.job_schedules).await?;
        msdb_sqlite::insert_history(&pool, &demo.history).await?;
        msdb_sqlite::insert_sessions(&pool, &demo.sessions).await?;
        msdb_sqlite::insert_activity(&pool, &demo.activity).await?;
        msdb_sqlite::finish(&pool).await
    }
    .await;
    pool.close().await;
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e).context("writing the demo tables");
    }
    std::fs::rename(&partial, path).context("moving the finished demo database into place")?;
    Ok(DemoSummary { jobs: demo.jobs.len(), history_rows: demo.history.len(), path: path.to_path_buf(), now })
}
