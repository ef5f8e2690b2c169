//! The pages' [`Backend`] over the configured sources: reads, analyses and caches.
//!
//! Reads are cached per window and coalesced: while one request computes a report, the
//! others for the same window wait for it instead of querying the source again, so many
//! browsers do not multiply the load on a production msdb.
use app::api::ssr::{Backend, BoxFuture, ReportError};
use app::api::{InstanceStatus, SourceState};
use app::engine::Window;
use app::engine::fleet::{self, InstanceReport};
use app::engine::reconcile::Settings;
use chrono::{DateTime, Duration, Utc};
use sqlx::SqlitePool;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Mutex;

use crate::sources::msdb_sqlite;

/// Where "now" comes from. The engine never reads the clock; this is the one place that does.
#[derive(Clone, Copy, Debug)]
pub enum Clock {
    /// The real clock.
    System,
    /// A fixed instant (the demo's "now", tests).
    Fixed(DateTime<Utc>),
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Fixed(t) => *t,
        }
    }
}

/// The embedded demo: one msdb-shaped SQLite database, opened read-only.
pub struct DemoBackend {
    pool: SqlitePool,
    instance: String,
    clock: Clock,
    settings: Settings,
    ttl: std::time::Duration,
    cache: Mutex<HashMap<u32, (Instant, Arc<InstanceReport>)>>,
}

impl DemoBackend {
    /// Open the demo database read-only; "now" is the demo's own.
    pub async fn open(path: &std::path::Path) -> anyhow::Result<Self> {
        use anyhow::Context;
        let pool = msdb_sqlite::open_read_only(path)
            .await
            .with_context(|| format!("opening the demo database {}", path.display()))?;
        let meta = msdb_sqlite::read_meta(&pool).await.context("reading the demo's meta table")?;
        Ok(DemoBackend {
            pool,
            instance: meta.name.clone(),
            clock: Clock::Fixed(meta.now),
            settings: Settings::default(),
            ttl: std::time::Duration::from_secs(3600),
            cache: Mutex::new(HashMap::new()),
        })
    }

    async fn compute(&self, days: u32) -> Result<InstanceReport, ReportError> {
        let now = self.clock.now();
        let window = Window::ending_at(now, Duration::days(i64::from(days)));
        let input = msdb_sqlite::read_instance(&self.pool, window).await.map_err(|e| {
            tracing::warn!(instance = %self.instance, error = %e, "reading the instance failed");
            ReportError::Unavailable {
                instance: self.instance.clone(),
                reason: "its demo database could not be read".into(),
                last_good: None,
            }
        })?;
        Ok(fleet::analyze(&input, window, now, &self.settings))
    }
}

impl Backend for DemoBackend {
    fn instances(&self) -> BoxFuture<'_, Vec<InstanceStatus>> {
        Box::pin(async move {
            let report = self.report(None, 1).await;
            let ok = report.as_ref().ok();
            vec![InstanceStatus {
                name: self.instance.clone(),
                kind: crate::config::SourceKind::SqliteDemo.name().into(),
                tz: ok.map(|r| r.tz.name().to_owned()),
                state: if ok.is_some() { SourceState::Ok } else { SourceState::Unreachable },
                last_good: ok.map(|r| app::api::ssr::point(r.now, r.tz)),
                last_attempt: ok.map(|r| app::api::ssr::point(r.now, r.tz)),
                // The demo's data never changes: nothing to refresh, never stale.
                poll_secs: None,
                age_secs: None,
                outages: Vec::new(),
                error: report.is_err().then(|| "its demo database could not be read".into()),
                notes: vec![app::api::DiagnosticLine {
                    severity: app::engine::Severity::Info,
                    text: "the built-in demo: a simulated SQL Server Agent (no sources are configured)".into(),
                }],
                jobs: ok.map(|r| r.jobs.len()),
                tags: vec!["environment=demo".into()],
            }]
        })
    }

    fn report(&self, instance: Option<&str>, days: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, ReportError>> {
        let wrong = instance.is_some_and(|i| i != self.instance);
        Box::pin(async move {
            if wrong {
                return Err(ReportError::UnknownInstance);
            }
            // Holding the lock while computing coalesces concurrent requests.
            let mut cache = self.cache.lock().await;
            if let Some((at, report)) = cache.get(&days)
                && at.elapsed() < self.ttl
            {
                return Ok(report.clone());
            }
            let started = Instant::now();
            let report = Arc::new(self.compute(days).await?);
            tracing::info!(instance = %self.instance, days, ms = started.elapsed().as_millis() as u64, "analysed");
            cache.insert(days, (Instant::now(), report.clone()));
            Ok(report)
        })
    }
}
