//! Serving a configured fleet: one poller per instance, each on its own timer and timeout.
//!
//! Every instance is read by its own task, every `poll_interval`, each read bounded by the
//! instance's `timeout`. Pages never touch a source: they analyse the last good read (cached
//! per window until the next read), so any number of browsers cost the source one read per
//! poll. A read that fails or times out marks the instance unreachable with its error and the
//! time of its last good read, and its pages go on showing that last good read under a banner
//! that says so; the other instances go on being read and served.
use app::api::ssr::{Backend, BoxFuture, ReportError};
use app::api::{DiagnosticLine, InstanceStatus, SourceState};
use app::engine::fleet::{self, InstanceInput, InstanceReport};
use app::engine::log::LogEvent;
use app::engine::reconcile::Settings;
use app::engine::{Diagnostic, Window};
use chrono::{DateTime, Duration as Span, Utc};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Mutex, watch};

use crate::config::{FleetConfig, InstanceConfig, SecretSource, SourceKind as Kind, TablesEngine, resolve_secret};
use crate::sources::snapshots::Store;
use crate::sources::tables::TablesDb;
use crate::sources::{msdb, msdb_sqlite, mysql_events, pg_cron, seed001, seed002, seed003, seed004};

/// Each read covers the longest window pages offer.
const READ_DAYS: i64 = 30;

/// One good read of an instance.
pub struct GoodRead {
    pub input: InstanceInput,
    pub notes: Vec<Diagnostic>,
    /// The source's own log (Primentra's SchedulerLog), mapped; empty for other sources.
    pub events: Vec<LogEvent>,
    /// The instance's "now" for this read (the poll time; the demo's own "now").
    pub now: DateTime<Utc>,
    /// When the read finished.
    pub at: DateTime<Utc>,
}

/// How reading one instance goes.
#[derive(Clone, Default)]
pub struct PollState {
    pub good: Option<Arc<GoodRead>>,
    pub last_attempt: Option<DateTime<Utc>>,
    /// The error of the last attempt, when it failed (safe to show).
    pub error: Option<String>,
    pub attempts: u64,
    /// Stretches in which the instance could not be read after it had been (first failed
    /// attempt, first good read after it, the error), newest last; the open one has no end.
    /// Kept for [`OUTAGE_DAYS`] days, in memory.
    pub outages: Vec<(DateTime<Utc>, Option<DateTime<Utc>>, String)>,
}

/// How long an unreachable stretch is remembered (pages announce those of the last 30 days).
pub const OUTAGE_DAYS: i64 = 30;

/// Open connections an instance keeps between polls.
#[derive(Default)]
struct Conn {
    pg: Option<sqlx::PgPool>,
    my: Option<sqlx::MySqlPool>,
    demo: Option<sqlx::SqlitePool>,
}

/// What reading one instance needs besides its configuration.
struct Reader {
    config: InstanceConfig,
    store: Option<Store>,
    conn: Mutex<Conn>,
}

fn secret(config: &InstanceConfig) -> Result<Option<String>, String> {
    resolve_secret(config).map(|s| s.map(|s| s.expose().to_owned())).map_err(|e| e.to_string())
}

impl Reader {
    /// The instance's open pools, opened on first use and kept between polls (pools are
    /// shared handles: the clones are cheap).
    async fn pg(&self, conn: &mut Conn) -> Result<sqlx::PgPool, String> {
        if conn.pg.is_none() {
            conn.pg = Some(self.pg_pool().await?);
        }
        Ok(conn.pg.clone().expect("set above"))
    }

    async fn mysql(&self, conn: &mut Conn) -> Result<sqlx::MySqlPool, String> {
        if conn.my.is_none() {
            conn.my = Some(self.mysql_pool().await?);
        }
        Ok(conn.my.clone().expect("set above"))
    }

    async fn sqlite(&self, conn: &mut Conn) -> Result<sqlx::SqlitePool, String> {
        if conn.demo.is_none() {
            let path = self.config.path.clone().unwrap_or_default();
            conn.demo = Some(msdb_sqlite::open_read_only(&path).await.map_err(|e| e.to_string())?);
        }
        Ok(conn.demo.clone().expect("set above"))
    }

    async fn pg_pool(&self) -> Result<sqlx::PgPool, String> {
        let c = &self.config;
        match &c.secret {
            SecretSource::UrlEnv(_) => pg_cron::connect_read_only(&secret(c)?.unwrap_or_default(), c.timeout).await,
            _ => {
                let mut o = sqlx::postgres::PgConnectOptions::new()
                    .host(c.host.as_deref().unwrap_or("localhost"))
                    .port(c.port.unwrap_or(5432))
                    .database(c.database.as_deref().unwrap_or("postgres"));
                if let Some(u) = &c.user {
                    o = o.username(u);
                }
                if let Some(p) = secret(c)? {
                    o = o.password(&p);
                }
                pg_cron::connect_read_only_with(o, c.timeout).await
            }
        }
        .map_err(|e| e.to_string())
    }

    async fn mysql_pool(&self) -> Result<sqlx::MySqlPool, String> {
        let c = &self.config;
        match &c.secret {
            SecretSource::UrlEnv(_) => {
                mysql_events::connect_read_only(&secret(c)?.unwrap_or_default(), c.timeout).await
            }
            _ => {
                let mut o = sqlx::mysql::MySqlConnectOptions::new()
                    .host(c.host.as_deref().unwrap_or("localhost"))
                    .port(c.port.unwrap_or(3306));
                if let Some(d) = &c.database {
                    o = o.database(d);
                }
                if let Some(u) = &c.user {
                    o = o.username(u);
                }
                if let Some(p) = secret(c)? {
                    o = o.password(&p);
                }
                mysql_events::connect_read_only_with(o, c.timeout).await
            }
        }
        .map_err(|e| e.to_string())
    }

    fn mssql_target(&self) -> Result<msdb::Target, String> {
        let c = &self.config;
        Ok(msdb::Target {
            host: c.host.clone().unwrap_or_else(|| "localhost".into()),
            port: c.port.unwrap_or(1433),
            user: c.user.clone().unwrap_or_default(),
            password: secret(c)?.unwrap_or_default(),
            encryption: if c.encrypt {
                tiberius::EncryptionLevel::Required
            } else {
                tiberius::EncryptionLevel::NotSupported
            },
            trust_cert: c.trust_server_certificate,
        })
    }

    /// One read, unbounded in time (the caller bounds it). Errors are safe to show.
    async fn read(&self, polled_at: DateTime<Utc>) -> Result<GoodRead, String> {
        let c = &self.config;
        let window = Window::ending_at(polled_at, Span::days(READ_DAYS));
        let mut conn = self.conn.lock().await;
        match c.kind {
            Kind::PgCron => {
                let pool = &self.pg(&mut conn).await?;
                let (mut input, notes) =
                    pg_cron::read_instance(pool, &c.name, window).await.map_err(|e| e.to_string())?;
                if let Some(tz) = c.time_zone {
                    input.tz = tz.into();
                }
                if let Some(store) = &self.store {
                    pg_cron::apply_watch(&mut input, store, polled_at).await.map_err(|e| e.to_string())?;
                }
                Ok(GoodRead { input, notes, events: Vec::new(), now: polled_at, at: Utc::now() })
            }
            Kind::MysqlEvents => {
                let pool = &self.mysql(&mut conn).await?;
                let store = self.store.as_ref().ok_or("Sundial's store is not open")?;
                let (input, notes) = mysql_events::read_instance(pool, store, &c.name, c.time_zone, window, polled_at)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(GoodRead { input, notes, events: Vec::new(), now: polled_at, at: Utc::now() })
            }
            Kind::Mssql => {
                let target = self.mssql_target()?;
                // A TDS connection per poll: nothing stays open on a production server.
                let mut client = msdb::connect(&target, c.timeout).await.map_err(|e| e.to_string())?;
                let (input, notes) = msdb::read_instance(&mut client, &c.name, c.time_zone, window, polled_at)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(GoodRead { input, notes, events: Vec::new(), now: polled_at, at: Utc::now() })
            }
            Kind::SqliteDemo => {
                let pool = &self.sqlite(&mut conn).await?;
                let meta = msdb_sqlite::read_meta(pool).await.map_err(|e| e.to_string())?;
                let window = Window::ending_at(meta.now, Span::days(READ_DAYS));
                let mut input = msdb_sqlite::read_instance(pool, window).await.map_err(|e| e.to_string())?;
                input.name = c.name.clone();
                Ok(GoodRead { input, notes: Vec::new(), events: Vec::new(), now: meta.now, at: Utc::now() })
            }
            Kind::JobActivity | Kind::MysqlJobTable | Kind::ServiceBroker | Kind::Primentra => {
                let mut db = match c.engine {
                    TablesEngine::Sqlite => TablesDb::Sqlite(self.sqlite(&mut conn).await?),
                    TablesEngine::Postgres => TablesDb::Postgres(self.pg(&mut conn).await?),
                    TablesEngine::MySql => TablesDb::MySql(self.mysql(&mut conn).await?),
                    TablesEngine::SqlServer => TablesDb::SqlServer(
                        msdb::connect(&self.mssql_target()?, c.timeout).await.map_err(|e| e.to_string())?,
                    ),
                };
                let tz = c.time_zone.unwrap_or(chrono_tz::UTC);
                let mut events = Vec::new();
                let (input, notes) = match c.kind {
                    Kind::JobActivity => {
                        let stuck = Span::from_std(c.stuck_after).unwrap_or(Span::hours(1));
                        seed001::read_instance(&mut db, &c.name, tz, &c.schedule, stuck, window, polled_at)
                            .await
                            .map_err(|e| e.to_string())
                    }
                    Kind::MysqlJobTable => {
                        let store = self.store.as_ref().ok_or("Sundial's store is not open")?;
                        seed002::read_instance(&mut db, store, &c.name, tz, window, polled_at)
                            .await
                            .map_err(|e| e.to_string())
                    }
                    Kind::ServiceBroker => {
                        seed003::read_instance(&mut db, &c.name, tz, window, polled_at).await.map_err(|e| e.to_string())
                    }
                    _ => seed004::read_instance(&mut db, &c.name, tz, window, polled_at)
                        .await
                        .map_err(|e| e.to_string())
                        .map(|(i, n, e)| {
                            events = e;
                            (i, n)
                        }),
                }?;
                Ok(GoodRead { input, notes, events, now: polled_at, at: Utc::now() })
            }
        }
    }
}

/// A report and the time of the read it came from.
type CachedReport = (DateTime<Utc>, Arc<InstanceReport>);

/// One instance: its reader, its state, its reports.
struct Instance {
    reader: Reader,
    state: watch::Sender<PollState>,
    /// Reports per window length, for the read they came from (`GoodRead::at`).
    reports: Mutex<HashMap<u32, CachedReport>>,
}

impl Instance {
    /// Read once within the timeout and record how it went.
    async fn poll(&self) {
        let c = &self.reader.config;
        let polled_at = Utc::now();
        let result = match tokio::time::timeout(c.timeout, self.reader.read(polled_at)).await {
            Ok(r) => r,
            Err(_) => {
                // A connection that hung is not reused.
                *self.reader.conn.lock().await = Conn::default();
                Err(format!("no answer within {}", humantime::format_duration(c.timeout)))
            }
        };
        match &result {
            Ok(r) => tracing::info!(instance = %c.name, jobs = r.input.jobs.len(), "read"),
            Err(e) => tracing::warn!(instance = %c.name, error = %e, "read failed"),
        }
        self.state.send_modify(|s| {
            s.attempts += 1;
            s.last_attempt = Some(polled_at);
            let open = s.outages.last().is_some_and(|o| o.1.is_none());
            match result {
                Ok(r) => {
                    s.good = Some(Arc::new(r));
                    s.error = None;
                    if let Some(o) = s.outages.last_mut().filter(|_| open) {
                        o.1 = Some(polled_at);
                    }
                }
                Err(e) => {
                    // An outage starts at the first failed read after a good one.
                    if !open && s.good.is_some() {
                        s.outages.push((polled_at, None, e.clone()));
                    }
                    s.error = Some(e);
                }
            }
            let horizon = polled_at - chrono::Duration::days(OUTAGE_DAYS);
            s.outages.retain(|o| o.1.is_none_or(|end| end > horizon));
        });
    }

    /// The state, once the first read has finished (or its timeout passed).
    async fn settled(&self) -> PollState {
        let mut rx = self.state.subscribe();
        let wait = self.reader.config.timeout + Duration::from_secs(1);
        let _ = tokio::time::timeout(wait, rx.wait_for(|s| s.attempts > 0)).await;
        rx.borrow().clone()
    }

    fn status(&self, s: &PollState) -> InstanceStatus {
        let c = &self.reader.config;
        let good = s.good.as_deref();
        let tz = good.map(|g| g.input.tz).unwrap_or(chrono_tz::UTC.into());
        let fmt = |t: DateTime<Utc>| app::api::ssr::point(t, tz);
        InstanceStatus {
            name: c.name.clone(),
            kind: c.kind.name().to_owned(),
            tz: good.map(|g| g.input.tz.name().to_owned()),
            state: match (&s.error, s.attempts) {
                (_, 0) => SourceState::Waiting,
                (Some(_), _) => SourceState::Unreachable,
                (None, _) => SourceState::Ok,
            },
            last_good: good.map(|g| fmt(g.at)),
            last_attempt: s.last_attempt.map(fmt),
            poll_secs: Some(c.poll_interval.as_secs().max(1)),
            outages: s
                .outages
                .iter()
                .map(|(start, end, error)| app::api::Outage {
                    start: fmt(*start),
                    end: end.map(fmt),
                    error: error.clone(),
                })
                .collect(),
            // The one place pages learn how old their data is: the server's clock.
            age_secs: good.map(|g| (Utc::now() - g.at).num_seconds().max(0)),
            error: s.error.clone(),
            notes: good
                .map(|g| {
                    g.notes.iter().map(|d| DiagnosticLine { severity: d.severity, text: d.message.clone() }).collect()
                })
                .unwrap_or_default(),
            jobs: good.map(|g| g.input.jobs.len()),
            tags: c.tags.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        }
    }
}

/// The pages' [`Backend`] over a configured fleet (see the module docs).
pub struct FleetBackend {
    instances: Vec<Arc<Instance>>,
    settings: Settings,
}

impl FleetBackend {
    /// Start one poller per instance (each reads at once, then every `poll_interval`).
    pub async fn start(config: &FleetConfig) -> anyhow::Result<Arc<FleetBackend>> {
        use anyhow::Context;
        let needs_store =
            config.instances.iter().any(|i| matches!(i.kind, Kind::MysqlEvents | Kind::MysqlJobTable | Kind::PgCron));
        let store = if needs_store {
            Some(
                Store::open(&config.store)
                    .await
                    .with_context(|| format!("opening Sundial's store {}", config.store.display()))?,
            )
        } else {
            None
        };
        let instances: Vec<Arc<Instance>> = config
            .instances
            .iter()
            .map(|c| {
                Arc::new(Instance {
                    reader: Reader { config: c.clone(), store: store.clone(), conn: Mutex::new(Conn::default()) },
                    state: watch::channel(PollState::default()).0,
                    reports: Mutex::new(HashMap::new()),
                })
            })
            .collect();
        for instance in &instances {
            let instance = instance.clone();
            tokio::spawn(async move {
                let mut timer = tokio::time::interval(instance.reader.config.poll_interval);
                timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    timer.tick().await;
                    instance.poll().await;
                }
            });
        }
        Ok(Arc::new(FleetBackend { instances, settings: Settings::default() }))
    }

    fn find(&self, name: Option<&str>) -> Option<&Arc<Instance>> {
        match name {
            None => self.instances.first(),
            Some(n) => self.instances.iter().find(|i| i.reader.config.name == n),
        }
    }
}

/// The part of a read that falls in `window`: runs outside it are not the window's.
fn within(input: &InstanceInput, window: Window) -> InstanceInput {
    let mut input = input.clone();
    for job in &mut input.jobs {
        job.runs.retain(|r| window.contains(r.start) || r.end() > window.start);
    }
    input
}

impl Backend for FleetBackend {
    fn source_log(&self, instance: Option<&str>) -> BoxFuture<'_, Vec<LogEvent>> {
        let found = self.find(instance).cloned();
        Box::pin(async move {
            found.and_then(|i| i.state.borrow().good.as_ref().map(|g| g.events.clone())).unwrap_or_default()
        })
    }

    fn instances(&self) -> BoxFuture<'_, Vec<InstanceStatus>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(self.instances.len());
            for i in &self.instances {
                let state = i.state.borrow().clone();
                out.push(i.status(&state));
            }
            out
        })
    }

    fn report(&self, instance: Option<&str>, days: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, ReportError>> {
        let found = self.find(instance).cloned();
        Box::pin(async move {
            let i = found.ok_or(ReportError::UnknownInstance)?;
            let state = i.settled().await;
            let name = i.reader.config.name.clone();
            // The last good read, even when the latest attempt failed: the page then says so
            // (the instance's status is unreachable) and shows what Sundial last saw.
            let good = match &state.good {
                Some(good) => good.clone(),
                None => {
                    let reason = match (&state.error, state.attempts) {
                        (Some(e), _) => e.clone(),
                        (None, 0) => format!(
                            "the first read is still going (timeout {})",
                            humantime::format_duration(i.reader.config.timeout)
                        ),
                        (None, _) => "it has not been read".to_owned(),
                    };
                    return Err(ReportError::Unavailable { instance: name, reason, last_good: None });
                }
            };
            // Holding the lock while computing coalesces concurrent requests for one instance.
            let mut reports = i.reports.lock().await;
            if let Some((at, report)) = reports.get(&days)
                && *at == good.at
            {
                return Ok(report.clone());
            }
            let window = Window::ending_at(good.now, Span::days(i64::from(days)));
            let report = Arc::new(fleet::analyze(&within(&good.input, window), window, good.now, &self.settings));
            reports.insert(days, (good.at, report.clone()));
            Ok(report)
        })
    }
}

/// `check-config`: read each instance once, as serving would, and say what Sundial sees.
pub async fn probe(config: &FleetConfig) -> Vec<(String, Result<String, String>)> {
    let store =
        if config.instances.iter().any(|i| matches!(i.kind, Kind::MysqlEvents | Kind::MysqlJobTable | Kind::PgCron)) {
            Store::open(&config.store).await.ok()
        } else {
            None
        };
    let mut out = Vec::new();
    for c in &config.instances {
        let reader = Reader { config: c.clone(), store: store.clone(), conn: Mutex::new(Conn::default()) };
        let result = match tokio::time::timeout(c.timeout, reader.read(Utc::now())).await {
            Err(_) => Err(format!("no answer within {}", humantime::format_duration(c.timeout))),
            Ok(Err(e)) => Err(e),
            Ok(Ok(r)) => {
                let runs: usize = r.input.jobs.iter().map(|j| j.runs.len()).sum();
                let mut text = format!(
                    "{} jobs, {} runs in the last {READ_DAYS} days, zone {}",
                    r.input.jobs.len(),
                    runs,
                    r.input.tz.name()
                );
                for n in &r.notes {
                    text.push_str(&format!("\n    {:?}: {}", n.severity, n.message));
                }
                Ok(text)
            }
        };
        out.push((c.name.clone(), result));
    }
    out
}
