//! The fleet configuration: a TOML file listing the instances Sundial reads.
//!
//! ```toml
//! store = "/var/lib/sundial/store.sqlite"   # Sundial's own store; default: beside this file
//! # store = "postgres://sundial@db.corp/sundial" # or PostgreSQL, shared by replicas (password from
//! # store_url_env = "SUNDIAL_STORE_URL"         # PGPASSWORD / ~/.pgpass, or the whole URL from a variable)
//! history_retention = "90d"        # how long Sundial keeps the runs it read (default 90d)
//!
//! [triage]                         # what counts as a problem (all optional; these are the defaults)
//! no_success_after = "2d"          # a job whose runs only failed this long: "no success"
//! long_factor = 1.5                # a run going past p95 × this: "running long"
//! short_factor = 0.25              # a success under p50 × this (p50 ≥ 2 min): "too short"
//! stale_polls = 3                  # a read older than this many poll intervals: "stale"
//!
//! [http]                           # what the server allows its clients (these are the defaults)
//! max_connections = 1024           # open at once, from everyone; more are answered 503
//! max_connections_per_client = 64  # from one IP address (429); behind a reverse proxy every
//!                                  # client has the proxy's address: raise it to about the total
//! header_timeout = "5s"            # a request's head must arrive within this (and an idle
//!                                  # kept-alive connection closes after it)
//! send_timeout = "30s"             # a client that takes no byte of its answer this long is cut off
//!
//! [defaults]
//! poll_interval = "60s"
//! timeout = "10s"
//!
//! [[instance]]
//! name = "SQLPROD01"
//! kind = "mssql"                   # mssql | pg_cron | pgagent | mysql_events | jobactivity
//!                                  # | mysql_job_table | service_broker | primentra | sqlite_demo
//! host = "sqlprod01.corp"
//! port = 1433
//! user = "sundial_reader"
//! password_env = "SQLPROD01_PASSWORD"   # or password_file = "/run/secrets/x", or url_env = "…"
//! time_zone = "America/New_York"   # optional override
//! encrypt = true                   # SQL Server TLS (default); trust_server_certificate = false
//!
//! [[instance]]
//! name = "primentra"
//! kind = "primentra"               # the home-grown schedulers' tables: in SQL Server (default), or
//! engine = "postgres"              # engine = "postgres" | "mysql" | "sqlite" (with path = "…")
//! tags = { environment = "prod" }
//!
//! [[instance]]
//! name = "worker"
//! kind = "jobactivity"             # one table, many jobs: each listed with its own schedule
//! engine = "sqlserver"
//! stuck_after = "60m"              # a run not stopped after this long crashed (default 60m;
//!                                  # mysql_job_table takes it too, for a cycle never finished)
//! [[instance.job]]
//! name = "TestJob"                 # compared case-insensitively, as SQL Azure does
//! schedule = "0 13 * * *"          # 5-field cron in time_zone
//! enabled = true                   # default true; stuck_after may be set per job too
//! ```
//!
//! A `jobactivity` instance without `[[instance.job]]` expects every job in its table on the
//! instance's `schedule` (default `0 13 * * *`); with them, a job in the table but not listed
//! is shown as unconfigured (its runs, nothing expected).
//!
//! The home-grown schedulers' kinds were first spelled after the seeds describing them:
//! `seed001` (now `jobactivity`), `seed002` (`mysql_job_table`), `seed003` (`service_broker`),
//! `seed004` (`primentra`). The old spellings are still accepted.
//!
//! Deadlines jobs must meet (`[[deadline]]`): see [`deadlines`].
//! Webhooks (`[[alert]]`) and the address their links point to (`public_url`): see [`alerts`].
//! Sign-in (`[auth]`): see [`auth`].
//!
//! Secrets are never in the file: `password = "…"` is refused. They are read from the named
//! environment variable or file only when a connection needs them, and print as `***`.
//! Every error names the file, the line and the field.
// `ConfigError` is large (file, line, field, a TOML error) and returned once, at start: boxing it
// would buy nothing.
#![allow(clippy::result_large_err)]
use chrono_tz::Tz;
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

mod alerts;
mod auth;
mod deadlines;
mod kinds;
mod maintenance;
pub use alerts::{
    AlertConfig, AlertFormat, AlertRoute, AlertTarget, EmailSettings, PAGERDUTY_EVENTS_URL, QuietHours, check_smtp_url,
    read_ca_file, resolve_alert_url, resolve_routing_key,
};
pub use auth::{AuthConfig, ProxyConfig};
pub use deadlines::DeadlineConfig;
pub use kinds::{KINDS, KindInfo, SourceKind};
pub use maintenance::{MaintenanceConfig, MaintenanceScope, instant_in};

/// What can be wrong with a configuration. Messages name the file, line and field, never a
/// secret's value.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{origin}: cannot read the configuration: {source}")]
    Read { origin: String, source: std::io::Error },
    /// Not TOML, or a value of the wrong type, or an unknown field.
    #[error("{origin}:{line}: {message}")]
    Syntax { origin: String, line: usize, message: String },
    /// A field with a value Sundial cannot use.
    #[error("{origin}:{line}: {}{field} = {value}: {message}", instance.as_ref().map(|i| format!("instance \"{i}\": ")).unwrap_or_default())]
    Invalid { origin: String, line: usize, instance: Option<String>, field: String, value: String, message: String },
    /// A secret named by the configuration is not there.
    #[error("instance \"{instance}\": {what}")]
    MissingSecret { instance: String, what: String },
}

/// How long Sundial keeps the runs it read (`crate::history`) when `history_retention` does
/// not say.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(90 * 86_400);

/// The name the first versions used.
pub type Kind = SourceKind;

/// What a server allows its clients (the fleet file's `[http]`; `crate::http::serve` holds to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    /// Connections open at once, from everyone.
    pub max_connections: usize,
    /// Connections open at once from one IP address.
    pub max_connections_per_client: usize,
    /// How long a request's head may take to arrive, and a kept-alive connection may wait idle.
    pub header_timeout: std::time::Duration,
    /// How long an answer may wait for the socket to take any byte before the connection is
    /// closed.
    pub send_timeout: std::time::Duration,
}

impl Default for HttpLimits {
    /// 1024 connections, 64 per client (a browser opens at most 6 per site; a team behind one
    /// NAT shares an address), 5 s for a request's head, 30 s for a stalled send.
    fn default() -> HttpLimits {
        HttpLimits {
            max_connections: 1024,
            max_connections_per_client: 64,
            header_timeout: std::time::Duration::from_secs(5),
            send_timeout: std::time::Duration::from_secs(30),
        }
    }
}

/// The database a home-grown scheduler's tables live in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TablesEngine {
    SqlServer,
    Postgres,
    MySql,
    Sqlite,
}

/// Where an instance's secret comes from (never the secret itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretSource {
    None,
    /// A password in this environment variable.
    Env(String),
    /// A password in this file.
    File(PathBuf),
    /// A whole connection URL (with its password) in this environment variable.
    UrlEnv(String),
}

/// A secret value; prints as `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The value, for the one place that hands it to a driver.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// One instance, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceConfig {
    pub name: String,
    pub kind: SourceKind,
    pub host: Option<String>,
    pub port: Option<u16>,
    pub database: Option<String>,
    pub user: Option<String>,
    /// A SQLite file (sqlite_demo; a home-grown scheduler's tables in SQLite; pg_cron's or the
    /// MySQL event scheduler's tables in a file, as the built-in demo has them).
    pub path: Option<PathBuf>,
    pub secret: SecretSource,
    /// Overrides the zone the instance reports.
    pub time_zone: Option<Tz>,
    pub poll_interval: Duration,
    pub timeout: Duration,
    /// Where a home-grown scheduler's tables live: `sqlserver` (the articles'), `postgres`,
    /// `mysql` or `sqlite` (default: `sqlite` with a path, `mysql` for `mysql_job_table`, else
    /// `sqlserver`).
    pub engine: TablesEngine,
    /// jobactivity: the schedule the worker follows (5-field cron); default `0 13 * * *`.
    pub schedule: String,
    /// jobactivity and mysql_job_table: a run (a cycle) not finished after this long crashed;
    /// default 60 minutes.
    pub stuck_after: Duration,
    /// jobactivity: the jobs of its table with their own schedules (`[[instance.job]]`);
    /// empty: every job follows `schedule`.
    pub jobs: Vec<JobConfig>,
    /// SQL Server: encrypt the connection (TLS); default true.
    pub encrypt: bool,
    /// SQL Server: skip the certificate check; default false.
    pub trust_server_certificate: bool,
    pub tags: BTreeMap<String, String>,
    /// The line of its `[[instance]]` table, for messages.
    pub line: usize,
}

/// The whole file, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetConfig {
    /// Where it came from (a path, for messages).
    pub origin: String,
    /// Sundial's own store: the one database Sundial writes (samples MySQL forgets, triage's
    /// acknowledgements, the history kept): a SQLite file, or PostgreSQL (`crate::store`).
    pub store: crate::store::StoreAt,
    /// What counts as a problem (`[triage]`).
    pub triage: sundial_engine::triage::TriageSettings,
    pub instances: Vec<InstanceConfig>,
    /// Where alerts' links point (`public_url`, no trailing slash); `None`: `http://<bind address>`.
    pub public_url: Option<String>,
    /// Webhooks (`[[alert]]`, see [`alerts`]).
    pub alerts: Vec<AlertConfig>,
    /// Sign-in (`[auth]`, see [`auth`]); `None`: none configured.
    pub auth: Option<AuthConfig>,
    /// How long Sundial keeps the runs it has read (`history_retention`, see `crate::history`).
    pub history_retention: Duration,
    /// Planned maintenance windows (`[[maintenance]]`, see [`maintenance`]).
    pub maintenance: Vec<MaintenanceConfig>,
    /// Deadlines jobs must meet (`[[deadline]]`, see [`deadlines`]).
    pub deadlines: Vec<DeadlineConfig>,
    /// What the server allows its clients (`[http]`): connections, in all and per address, and
    /// how long a request's head and a stalled send may take (`crate::http::serve`, [`HttpLimits`]).
    pub http: HttpLimits,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    /// Where alerts' links point.
    public_url: Option<Spanned<String>>,
    #[serde(default)]
    alert: Vec<Spanned<alerts::RawAlert>>,
    /// Planned maintenance windows.
    #[serde(default)]
    maintenance: Vec<Spanned<maintenance::RawMaintenance>>,
    /// Deadlines jobs must meet.
    #[serde(default)]
    deadline: Vec<Spanned<deadlines::RawDeadline>>,
    /// Sign-in.
    auth: Option<Spanned<auth::RawAuth>>,
    /// Sundial's own store: a SQLite file's path (default: beside the configuration file) or a
    /// PostgreSQL URL without a password.
    store: Option<Spanned<String>>,
    /// The environment variable holding the store's PostgreSQL URL (a secret).
    store_url_env: Option<Spanned<String>>,
    /// How long kept runs stay in the store.
    history_retention: Option<Spanned<String>>,
    defaults: Option<RawDefaults>,
    triage: Option<RawTriage>,
    http: Option<RawHttp>,
    #[serde(default)]
    instance: Vec<Spanned<RawInstance>>,
}

/// `[http]`: the server's limits on its clients.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHttp {
    max_connections: Option<Spanned<i64>>,
    max_connections_per_client: Option<Spanned<i64>>,
    header_timeout: Option<Spanned<String>>,
    send_timeout: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTriage {
    no_success_after: Option<Spanned<String>>,
    long_factor: Option<Spanned<f64>>,
    short_factor: Option<Spanned<f64>>,
    stale_polls: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDefaults {
    poll_interval: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInstance {
    name: Spanned<String>,
    kind: Spanned<String>,
    host: Option<String>,
    port: Option<Spanned<i64>>,
    database: Option<String>,
    user: Option<String>,
    path: Option<String>,
    password: Option<Spanned<toml::Value>>,
    password_env: Option<Spanned<String>>,
    password_file: Option<Spanned<String>>,
    url_env: Option<Spanned<String>>,
    time_zone: Option<Spanned<String>>,
    poll_interval: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
    /// Home-grown schedulers' tables: the database holding them (sqlserver | postgres | mysql | sqlite).
    engine: Option<Spanned<String>>,
    /// jobactivity: the job's schedule (5-field cron, in time_zone); default "0 13 * * *".
    schedule: Option<String>,
    /// jobactivity, mysql_job_table: a run started and not finished after this long has crashed;
    /// default "60m".
    stuck_after: Option<Spanned<String>>,
    /// SQL Server: encrypt the connection (default true; false only for a server without TLS).
    encrypt: Option<bool>,
    /// SQL Server: accept the server's certificate without checking it (default false).
    trust_server_certificate: Option<bool>,
    #[serde(default)]
    tags: BTreeMap<String, String>,
    /// jobactivity: the jobs of its table, each with its own schedule.
    #[serde(default)]
    job: Vec<Spanned<RawJob>>,
}

/// One `[[instance.job]]` of a jobactivity instance.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    name: Spanned<String>,
    schedule: Option<Spanned<String>>,
    enabled: Option<bool>,
    stuck_after: Option<Spanned<String>>,
}

/// One job of a jobactivity instance, as configured.
#[derive(Clone, Debug, PartialEq)]
pub struct JobConfig {
    /// As written; matched to the table's `job_name` case-insensitively.
    pub name: String,
    /// 5-field cron in the instance's zone.
    pub schedule: String,
    pub enabled: bool,
    /// A run not stopped after this long crashed.
    pub stuck_after: Duration,
}

const DEFAULT_POLL: Duration = Duration::from_secs(60);
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Read and validate the file at `path`.
pub fn load(path: &Path) -> Result<FleetConfig, ConfigError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { origin: origin.clone(), source })?;
    parse(&text, &origin)
}

fn line_of(text: &str, span: Range<usize>) -> usize {
    text.get(..span.start.min(text.len())).map_or(1, |t| t.matches('\n').count() + 1)
}

/// Validate `text`; `origin` names it in messages.
pub fn parse(text: &str, origin: &str) -> Result<FleetConfig, ConfigError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| ConfigError::Syntax {
        origin: origin.to_owned(),
        line: e.span().map_or(1, |s| line_of(text, s)),
        message: e.message().trim().to_owned(),
    })?;
    let check = Checker { text, origin };
    let defaults = check.defaults(raw.defaults.as_ref())?;
    let triage = check.triage(raw.triage.as_ref())?;
    let mut names = HashSet::new();
    let mut instances = Vec::new();
    for spanned in &raw.instance {
        instances.push(check.instance(spanned, &mut names, defaults)?);
    }
    let store = check.store(raw.store.as_ref(), raw.store_url_env.as_ref())?;
    let public_url = check.public_url(raw.public_url.as_ref())?;
    let alerts = check.alerts(&raw.alert)?;
    let auth = check.auth(raw.auth.as_ref())?;
    let history_retention = match &raw.history_retention {
        Some(v) => {
            let d = check.duration(v, None, "history_retention")?;
            if d < Duration::from_secs(31 * 86_400) {
                let why = "must be at least 31 days: pages show the last 30";
                return Err(check.invalid(v.span(), None, "history_retention", &format!("{:?}", v.get_ref()), why));
            }
            d
        }
        None => DEFAULT_RETENTION,
    };
    let maintenance = check.maintenance(&raw.maintenance, &instances)?;
    let deadlines = check.deadlines(&raw.deadline, &instances)?;
    let http = check.http(raw.http.as_ref())?;
    Ok(FleetConfig {
        origin: origin.to_owned(),
        store,
        triage,
        instances,
        public_url,
        alerts,
        auth,
        history_retention,
        maintenance,
        deadlines,
        http,
    })
}

/// The poll interval and timeout of an instance that sets none: `[defaults]`, else
/// [`DEFAULT_POLL`] and [`DEFAULT_TIMEOUT`].
#[derive(Clone, Copy)]
struct Defaults {
    poll: Duration,
    timeout: Duration,
}

/// The file being validated: its text (for line numbers) and its name, which every
/// [`ConfigError::Invalid`] names.
struct Checker<'a> {
    text: &'a str,
    origin: &'a str,
}

impl Checker<'_> {
    /// Where Sundial's store is: `store` (a file, or a PostgreSQL URL that holds no password) or
    /// `store_url_env` (a variable holding the URL), not both; default: a file beside this one.
    fn store(
        &self,
        path: Option<&Spanned<String>>,
        env: Option<&Spanned<String>>,
    ) -> Result<crate::store::StoreAt, ConfigError> {
        use crate::store::StoreAt;
        let is_url = |v: &str| v.starts_with("postgres://") || v.starts_with("postgresql://");
        match (path, env) {
            (Some(_), Some(e)) => Err(self.invalid(
                e.span(),
                None,
                "store_url_env",
                &format!("{:?}", e.get_ref()),
                "set store or store_url_env, not both",
            )),
            (None, Some(e)) => {
                let name = e.get_ref();
                let shown = format!("{name:?}");
                match std::env::var(name) {
                    Ok(url) if is_url(url.trim()) => Ok(StoreAt::Postgres(url.trim().to_owned())),
                    Ok(_) => Err(self.invalid(
                        e.span(),
                        None,
                        "store_url_env",
                        &shown,
                        "the variable does not hold a postgres:// URL",
                    )),
                    Err(_) => Err(self.invalid(e.span(), None, "store_url_env", &shown, "the variable is not set")),
                }
            }
            (Some(p), None) if is_url(p.get_ref()) => {
                let at = StoreAt::Postgres(p.get_ref().clone());
                match url::Url::parse(p.get_ref()) {
                    Err(_) => Err(self.invalid(p.span(), None, "store", &at, "not a URL")),
                    Ok(u) if u.password().is_some() => Err(self.invalid(
                        p.span(),
                        None,
                        "store",
                        &at,
                        "secrets never go in the file: leave the password out (PGPASSWORD or ~/.pgpass) or name a variable holding the URL (store_url_env)",
                    )),
                    Ok(_) => Ok(at),
                }
            }
            (Some(p), None) => Ok(StoreAt::File(PathBuf::from(p.get_ref()))),
            (None, None) => Ok(StoreAt::File(
                Path::new(self.origin).parent().unwrap_or(Path::new(".")).join("sundial-store.sqlite"),
            )),
        }
    }

    /// `field = value: message` at `span` (of `instance`, if any).
    fn invalid(
        &self,
        span: Range<usize>,
        instance: Option<&str>,
        field: &str,
        value: &dyn fmt::Display,
        message: &str,
    ) -> ConfigError {
        ConfigError::Invalid {
            origin: self.origin.to_owned(),
            line: line_of(self.text, span),
            instance: instance.map(str::to_owned),
            field: field.to_owned(),
            value: value.to_string(),
            message: message.to_owned(),
        }
    }

    /// A non-zero duration like "30s".
    fn duration(&self, v: &Spanned<String>, instance: Option<&str>, field: &str) -> Result<Duration, ConfigError> {
        humantime::parse_duration(v.get_ref()).ok().filter(|d| !d.is_zero()).ok_or_else(|| {
            self.invalid(
                v.span(),
                instance,
                field,
                &format!("{:?}", v.get_ref()),
                "not a duration like \"30s\", \"5m\" or \"1h\"",
            )
        })
    }

    /// `[defaults]`: poll interval, then timeout.
    fn defaults(&self, raw: Option<&RawDefaults>) -> Result<Defaults, ConfigError> {
        let mut defaults = Defaults { poll: DEFAULT_POLL, timeout: DEFAULT_TIMEOUT };
        if let Some(d) = raw {
            if let Some(v) = &d.poll_interval {
                defaults.poll = self.duration(v, None, "defaults.poll_interval")?;
            }
            if let Some(v) = &d.timeout {
                defaults.timeout = self.duration(v, None, "defaults.timeout")?;
            }
        }
        Ok(defaults)
    }

    /// `[triage]`: each knob within what makes sense, else the field, its value and why.
    fn triage(&self, raw: Option<&RawTriage>) -> Result<sundial_engine::triage::TriageSettings, ConfigError> {
        let mut t = sundial_engine::triage::TriageSettings::default();
        let Some(raw) = raw else { return Ok(t) };
        if let Some(v) = &raw.no_success_after {
            let d = self.duration(v, None, "triage.no_success_after")?;
            t.no_success_days = (d.as_secs() / 86_400) as i64;
            if d.as_secs() % 86_400 != 0 || t.no_success_days == 0 {
                return Err(self.invalid(
                    v.span(),
                    None,
                    "triage.no_success_after",
                    &format!("{:?}", v.get_ref()),
                    "must be whole days, such as \"2d\"",
                ));
            }
        }
        let factor = |v: &Spanned<f64>, field: &str, ok: fn(f64) -> bool, what: &str| {
            let x = *v.get_ref();
            if x.is_finite() && ok(x) { Ok(x) } else { Err(self.invalid(v.span(), None, field, &x, what)) }
        };
        if let Some(v) = &raw.long_factor {
            t.durations.long_factor = factor(v, "triage.long_factor", |x| x >= 1.0, "must be at least 1 (× p95)")?;
        }
        if let Some(v) = &raw.short_factor {
            t.durations.short_factor =
                factor(v, "triage.short_factor", |x| x > 0.0 && x < 1.0, "must be between 0 and 1 (× p50)")?;
        }
        if let Some(v) = &raw.stale_polls {
            let n = *v.get_ref();
            t.stale_polls = u32::try_from(n).ok().filter(|n| (1..=1000).contains(n)).ok_or_else(|| {
                self.invalid(v.span(), None, "triage.stale_polls", &n, "must be a whole number from 1 to 1000")
            })?;
        }
        Ok(t)
    }

    /// `[http]`: connection counts from 1 to a million, the per-client one at most the total;
    /// the timeouts non-zero and at most an hour.
    fn http(&self, raw: Option<&RawHttp>) -> Result<HttpLimits, ConfigError> {
        let mut limits = HttpLimits::default();
        let Some(raw) = raw else { return Ok(limits) };
        let count = |v: &Spanned<i64>, field: &str, most: usize, why: String| {
            let n = *v.get_ref();
            usize::try_from(n)
                .ok()
                .filter(|n| (1..=most).contains(n))
                .ok_or_else(|| self.invalid(v.span(), None, field, &n, &why))
        };
        if let Some(v) = &raw.max_connections {
            let why = "must be a whole number from 1 to 1000000".to_owned();
            limits.max_connections = count(v, "http.max_connections", 1_000_000, why)?;
        }
        if let Some(v) = &raw.max_connections_per_client {
            let most = limits.max_connections;
            let why = format!("must be a whole number from 1 to max_connections ({most})");
            limits.max_connections_per_client = count(v, "http.max_connections_per_client", most, why)?;
        } else {
            limits.max_connections_per_client = limits.max_connections_per_client.min(limits.max_connections);
        }
        let timeout = |v: &Spanned<String>, field: &str| {
            let d = self.duration(v, None, field)?;
            if d > Duration::from_secs(3600) {
                return Err(self.invalid(
                    v.span(),
                    None,
                    field,
                    &format!("{:?}", v.get_ref()),
                    "must be at most an hour",
                ));
            }
            Ok(d)
        };
        if let Some(v) = &raw.header_timeout {
            limits.header_timeout = timeout(v, "http.header_timeout")?;
        }
        if let Some(v) = &raw.send_timeout {
            limits.send_timeout = timeout(v, "http.send_timeout")?;
        }
        Ok(limits)
    }

    /// One `[[instance]]`, checked field by field in a fixed order (the first problem is the
    /// error): name, kind, secrets, port, host or path, time zone, engine, durations.
    /// `names` holds the names of the instances before it.
    fn instance(
        &self,
        spanned: &Spanned<RawInstance>,
        names: &mut HashSet<String>,
        defaults: Defaults,
    ) -> Result<InstanceConfig, ConfigError> {
        let table_span = spanned.span();
        let r = spanned.get_ref();
        let name = self.name(r, names)?;
        let me = Some(name.as_str());
        let kind =
            r.kind.get_ref().parse::<SourceKind>().map_err(|message| {
                self.invalid(r.kind.span(), me, "kind", &format!("{:?}", r.kind.get_ref()), &message)
            })?;
        let secret = self.secret(r, me)?;
        let port = self.port(r, me)?;
        self.check_target(r, kind, matches!(secret, SecretSource::UrlEnv(_)), table_span.clone(), me)?;
        let time_zone = self.time_zone(r, me)?;
        let engine = self.engine(r, kind, me)?;
        let stuck_after = r
            .stuck_after
            .as_ref()
            .map(|v| self.duration(v, me, "stuck_after"))
            .transpose()?
            .unwrap_or(Duration::from_secs(3600));
        let poll_interval = r
            .poll_interval
            .as_ref()
            .map(|v| self.duration(v, me, "poll_interval"))
            .transpose()?
            .unwrap_or(defaults.poll);
        let timeout =
            r.timeout.as_ref().map(|v| self.duration(v, me, "timeout")).transpose()?.unwrap_or(defaults.timeout);
        let jobs = self.jobs(r, kind, stuck_after, me)?;
        Ok(InstanceConfig {
            name,
            kind,
            host: r.host.clone(),
            port,
            database: r.database.clone(),
            user: r.user.clone(),
            path: r.path.as_ref().map(PathBuf::from),
            secret,
            time_zone,
            poll_interval,
            timeout,
            engine,
            schedule: r.schedule.clone().unwrap_or_else(|| "0 13 * * *".into()),
            stuck_after,
            jobs,
            encrypt: r.encrypt.unwrap_or(true),
            trust_server_certificate: r.trust_server_certificate.unwrap_or(false),
            tags: r.tags.clone(),
            line: line_of(self.text, table_span),
        })
    }

    /// A jobactivity instance's `[[instance.job]]`s: each named once (case-insensitively), its
    /// schedule a 5-field cron expression Sundial can forecast.
    fn jobs(
        &self,
        r: &RawInstance,
        kind: SourceKind,
        stuck_after: Duration,
        me: Option<&str>,
    ) -> Result<Vec<JobConfig>, ConfigError> {
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(r.job.len());
        for j in &r.job {
            let raw = j.get_ref();
            let name = raw.name.get_ref().trim().to_owned();
            let field = |f: &str| format!("job[{}].{f}", out.len());
            if !kind.info().lists_jobs {
                return Err(self.invalid(
                    j.span(),
                    me,
                    "job",
                    &format!("{name:?}"),
                    &format!(
                        "jobs are listed only for {} (the other kinds read their jobs from the scheduler)",
                        KINDS
                            .iter()
                            .filter(|k| k.lists_jobs)
                            .map(|k| format!("kind = {:?}", k.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            if name.is_empty() || !seen.insert(name.to_lowercase()) {
                let why = if name.is_empty() {
                    "a job needs a name"
                } else {
                    "another job already has this name (names compare case-insensitively)"
                };
                return Err(self.invalid(raw.name.span(), me, &field("name"), &format!("{name:?}"), why));
            }
            let schedule = match &raw.schedule {
                Some(s) => {
                    let text = s.get_ref().trim().to_owned();
                    let cron = sundial_engine::Schedule::Cron(sundial_engine::cron::CronSchedule::new(text.clone()));
                    let probe =
                        sundial_engine::next_after(0, &cron, chrono_tz::UTC.into(), chrono::DateTime::UNIX_EPOCH, 1);
                    if let Some(d) = probe.diagnostics.iter().find(|d| d.severity == sundial_engine::Severity::Error) {
                        return Err(self.invalid(s.span(), me, &field("schedule"), &format!("{text:?}"), &d.message));
                    }
                    text
                }
                None => r.schedule.clone().unwrap_or_else(|| "0 13 * * *".into()),
            };
            let stuck = raw.stuck_after.as_ref().map(|v| self.duration(v, me, &field("stuck_after"))).transpose()?;
            out.push(JobConfig {
                name,
                schedule,
                enabled: raw.enabled.unwrap_or(true),
                stuck_after: stuck.unwrap_or(stuck_after),
            });
        }
        Ok(out)
    }

    /// The instance's name, trimmed: not empty, and not one an earlier instance has (it is
    /// added to `names`).
    fn name(&self, r: &RawInstance, names: &mut HashSet<String>) -> Result<String, ConfigError> {
        let name = r.name.get_ref().trim().to_owned();
        if name.is_empty() {
            return Err(self.invalid(r.name.span(), None, "name", &"\"\"", "an instance needs a name"));
        }
        if !names.insert(name.clone()) {
            return Err(self.invalid(
                r.name.span(),
                Some(name.as_str()),
                "name",
                &format!("{name:?}"),
                "another instance already has this name",
            ));
        }
        Ok(name)
    }

    /// Where the secret comes from: at most one of password_env, password_file, url_env, and
    /// never `password` itself.
    fn secret(&self, r: &RawInstance, me: Option<&str>) -> Result<SecretSource, ConfigError> {
        if let Some(p) = &r.password {
            return Err(self.invalid(
                p.span(),
                me,
                "password",
                &"***",
                "secrets never go in the file: name an environment variable (password_env) or a file (password_file)",
            ));
        }
        let sources: Vec<(&str, Range<usize>, SecretSource)> = [
            r.password_env.as_ref().map(|v| ("password_env", v.span(), SecretSource::Env(v.get_ref().clone()))),
            r.password_file.as_ref().map(|v| ("password_file", v.span(), SecretSource::File(v.get_ref().into()))),
            r.url_env.as_ref().map(|v| ("url_env", v.span(), SecretSource::UrlEnv(v.get_ref().clone()))),
        ]
        .into_iter()
        .flatten()
        .collect();
        if sources.len() > 1 {
            let (field, span, _) = &sources[1];
            return Err(self.invalid(
                span.clone(),
                me,
                field,
                &"…",
                &format!("only one of password_env, password_file, url_env (also {})", sources[0].0),
            ));
        }
        Ok(sources.into_iter().next().map_or(SecretSource::None, |(_, _, s)| s))
    }

    /// The TCP port, if set: 1..65535.
    fn port(&self, r: &RawInstance, me: Option<&str>) -> Result<Option<u16>, ConfigError> {
        let Some(p) = &r.port else {
            return Ok(None);
        };
        let port = u16::try_from(*p.get_ref())
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| self.invalid(p.span(), me, "port", p.get_ref(), "not a TCP port (1-65535)"))?;
        Ok(Some(port))
    }

    /// Something to connect to: a sqlite_demo instance needs its path; any other kind a host,
    /// a URL (`has_url`) or a path. `table_span` is the instance's table, which messages point at.
    fn check_target(
        &self,
        r: &RawInstance,
        kind: SourceKind,
        has_url: bool,
        table_span: Range<usize>,
        me: Option<&str>,
    ) -> Result<(), ConfigError> {
        match kind {
            _ if kind.info().needs_path && r.path.is_none() => Err(self.invalid(
                table_span,
                me,
                "path",
                &"(missing)",
                &format!("a {kind} instance needs the path of its SQLite file"),
            )),
            _ if kind.info().needs_path => Ok(()),
            _ if r.host.is_none() && r.path.is_none() && !has_url => Err(self.invalid(
                table_span,
                me,
                "host",
                &"(missing)",
                "needs host (or url_env, or path for tables in SQLite)",
            )),
            _ => Ok(()),
        }
    }

    /// The zone that overrides the instance's, if set: an IANA name.
    fn time_zone(&self, r: &RawInstance, me: Option<&str>) -> Result<Option<Tz>, ConfigError> {
        r.time_zone.as_ref().map(|z| self.zone(z, me, "time_zone")).transpose()
    }

    /// A `time_zone` value (of `instance`, if any, at `field`): an IANA name, else an error
    /// naming the file, line and field. Every section with a zone reads it through this.
    fn zone(&self, z: &Spanned<String>, instance: Option<&str>, field: &str) -> Result<Tz, ConfigError> {
        z.get_ref().trim().parse::<Tz>().map_err(|_| {
            self.invalid(
                z.span(),
                instance,
                field,
                &format!("{:?}", z.get_ref()),
                "not an IANA time zone (e.g. Europe/London)",
            )
        })
    }

    /// The database a home-grown scheduler's tables live in: as set, else SQLite with a path,
    /// MySQL for mysql_job_table, SQL Server otherwise.
    fn engine(&self, r: &RawInstance, kind: SourceKind, me: Option<&str>) -> Result<TablesEngine, ConfigError> {
        Ok(match r.engine.as_ref().map(|e| (e, e.get_ref().as_str())) {
            None if r.path.is_some() => TablesEngine::Sqlite,
            None => kind.info().default_engine,
            Some((_, "sqlserver")) => TablesEngine::SqlServer,
            Some((_, "postgres")) => TablesEngine::Postgres,
            Some((_, "mysql")) => TablesEngine::MySql,
            Some((_, "sqlite")) => TablesEngine::Sqlite,
            Some((e, other)) => {
                return Err(self.invalid(
                    e.span(),
                    me,
                    "engine",
                    &format!("{other:?}"),
                    "not sqlserver, postgres, mysql or sqlite",
                ));
            }
        })
    }
}

/// Read an instance's secret from where the configuration says; `None` when it names none.
pub fn resolve_secret(instance: &InstanceConfig) -> Result<Option<Secret>, ConfigError> {
    let missing = |what: String| ConfigError::MissingSecret { instance: instance.name.clone(), what };
    match &instance.secret {
        SecretSource::None => Ok(None),
        SecretSource::Env(var) | SecretSource::UrlEnv(var) => std::env::var(var)
            .map(|v| Some(Secret(v)))
            .map_err(|_| missing(format!("environment variable {var} is not set"))),
        SecretSource::File(path) => std::fs::read_to_string(path)
            .map(|v| Some(Secret(v.trim_end_matches(['\r', '\n']).to_owned())))
            .map_err(|e| missing(format!("cannot read the password file {}: {}", path.display(), e.kind()))),
    }
}

/// One line per instance, without secrets: what `check-config` prints before connecting.
pub fn summary(config: &FleetConfig) -> String {
    let mut out = String::new();
    for i in &config.instances {
        let target = match (&i.host, &i.path) {
            (Some(h), _) => format!("{h}{}", i.port.map(|p| format!(":{p}")).unwrap_or_default()),
            (None, Some(p)) => p.display().to_string(),
            (None, None) => "(url from environment)".to_owned(),
        };
        let db = i.database.as_ref().map(|d| format!("/{d}")).unwrap_or_default();
        let tz = i.time_zone.map_or("instance zone".to_owned(), |z| z.name().to_owned());
        let tags: Vec<String> = i.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        out.push_str(&format!(
            "{} ({}): {target}{db}, {tz}, poll {}, timeout {}{}\n",
            i.name,
            i.kind.name(),
            humantime::format_duration(i.poll_interval),
            humantime::format_duration(i.timeout),
            if tags.is_empty() { String::new() } else { format!(", {}", tags.join(" ")) }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(kind: &str, extra: &str) -> Result<InstanceConfig, ConfigError> {
        let text = format!("[[instance]]\nname = \"a\"\nkind = \"{kind}\"\nhost = \"h\"\n{extra}");
        parse(&text, "fleet.toml").map(|mut c| c.instances.remove(0))
    }

    #[test]
    fn old_and_new_spellings_load_to_the_same_kind() {
        for (old, new, kind) in [
            ("seed001", "jobactivity", SourceKind::JobActivity),
            ("seed002", "mysql_job_table", SourceKind::MysqlJobTable),
            ("seed003", "service_broker", SourceKind::ServiceBroker),
            ("seed004", "primentra", SourceKind::Primentra),
        ] {
            let a = one(old, "").unwrap_or_else(|e| panic!("{old}: {e}"));
            let b = one(new, "").unwrap_or_else(|e| panic!("{new}: {e}"));
            assert_eq!((a.kind, b.kind), (kind, kind), "{old} and {new}");
            assert_eq!(a, b, "{old} and {new} configure the same instance");
            assert_eq!(kind.name(), new);
            assert_eq!(kind.alias(), Some(old));
        }
        // The job table sits in MySQL unless said otherwise, whichever the spelling.
        assert_eq!(one("seed002", "").unwrap().engine, TablesEngine::MySql);
        assert_eq!(one("mysql_job_table", "").unwrap().engine, TablesEngine::MySql);
    }

    #[test]
    fn names_and_aliases_agree_with_serde() {
        for k in SourceKind::ALL {
            assert_eq!(SourceKind::parse(k.name()), Some(k), "{k}");
            assert_eq!(serde_json::to_value(k).unwrap(), k.name(), "serializes as its name");
            if let Some(a) = k.alias() {
                assert_eq!(SourceKind::parse(a), Some(k), "{a}");
            }
        }
        assert_eq!(SourceKind::parse("seed005"), None);
        assert_eq!(SourceKind::parse("Primentra"), None, "exact spelling, as before");
    }

    #[test]
    fn pages_learn_the_same_scheduler_from_either_spelling() {
        use sundial_model::Scheduler;
        for k in SourceKind::ALL {
            if let Some(a) = k.alias() {
                assert_eq!(SourceKind::parse(a).map(SourceKind::scheduler), Some(k.scheduler()), "{a}");
            }
        }
        // Every scheduler is some kind's.
        for s in Scheduler::ALL {
            assert!(SourceKind::ALL.iter().any(|k| k.scheduler() == s), "{s:?}");
        }
        assert_eq!(SourceKind::MysqlJobTable.scheduler().label(), "The job runner");
    }

    #[test]
    fn a_pgagent_instance_is_postgresql_or_a_file() {
        let c = one("pgagent", "user = \"sundial_reader\"\ntime_zone = \"Europe/Berlin\"\n").expect("loads");
        assert_eq!((c.kind, c.kind.name()), (SourceKind::PgAgent, "pgagent"));
        assert_eq!(c.kind.scheduler(), sundial_model::Scheduler::PgAgent);
        // The same tables in a SQLite file (as the built-in demo's pgAgent).
        let c = parse("[[instance]]\nname = \"a\"\nkind = \"pgagent\"\npath = \"/tmp/x.sqlite\"\n", "fleet.toml")
            .expect("a file loads");
        assert_eq!(c.instances[0].path.as_deref(), Some(std::path::Path::new("/tmp/x.sqlite")));
    }

    #[test]
    fn messages_show_the_new_names() {
        let e = one("oracle", "").unwrap_err().to_string();
        assert!(e.starts_with("fleet.toml:3: instance \"a\": kind = \"oracle\""), "{e}");
        for name in
            ["mssql", "jobactivity", "mysql_job_table", "service_broker", "primentra", "seed002 = mysql_job_table"]
        {
            assert!(e.contains(name), "{e} names {name}");
        }
        let c = parse("[[instance]]\nname = \"jobs\"\nkind = \"seed002\"\nhost = \"db1\"\n", "fleet.toml").unwrap();
        let s = summary(&c);
        assert!(s.starts_with("jobs (mysql_job_table): db1, "), "{s}");
        assert!(!s.contains("seed"), "{s}");
    }
}
