//! The schedule what-if editor's engine side: read a row a DBA pasted, say what is odd about
//! it, describe it the way msdb does, and write the statement that would apply an edited
//! schedule.
//!
//! The editor is a page computed in the browser by this crate. The DBA pastes one row of the
//! scheduler's own table as JSON (`SELECT … FOR JSON PATH, WITHOUT_ARRAY_WRAPPER` on SQL
//! Server, `row_to_json` on PostgreSQL, `JSON_OBJECT(…)` on MySQL), edits it, watches the
//! forecast change, and copies the statement that applies the edit. **Sundial never writes**:
//! [`apply_statement`] only returns text for the DBA to read and run.
//!
//! Like the rest of the engine this module is pure and takes no time zone: the current time
//! is an argument (`now`, and `now_local`, the wall clock of the zone the schedule's times are
//! read in), and the forecast that shows whether the edited schedule ever fires is the
//! caller's (see [`never_fires_warning`]).
//!
//! - [`Dialect`]: the seven sources, with stable keys for URLs (`agent`, `cron`, `mysql_event`,
//!   `job_table`, `service_broker`, `primentra`, `pgagent`) and labels.
//! - [`parse_row`] / [`parse_row_full`]: one row as JSON → a [`Schedule`] (and the [`Target`]
//!   key columns found in the row); [`to_row`] writes a schedule back as such a row.
//! - [`msdb_description`]: the text msdb's `sp_get_schedule_description` produces, as
//!   `sp_help_jobschedule` shows it (not SSMS's wording, which is [`crate::describe::agent`]).
//! - [`warnings`]: non-blocking remarks for the editor (disabled, already ended, Vixie cron's
//!   day OR, features the installed pg_cron lacks).
//! - [`apply_statement`]: `EXEC msdb.dbo.sp_update_schedule …`, `SELECT cron.alter_job(…)`,
//!   `ALTER EVENT …`, or the `UPDATE` of a home-grown scheduler's table
//!   ([`apply_row_statement`] also applies pg_cron's `active`).
//!
//! Cases: `app/engine/tests/cases/edit/`, run by `tests/edit_cases.rs`.
mod apply;
mod msdb;
mod row;
mod warn;

pub use apply::{MYSQL_INTERVAL_FIELDS, apply_row_statement, apply_statement};
pub use msdb::{msdb_description, msdb_description_idle};
pub use row::{Row, parse_row, parse_row_full, to_row};
pub use warn::{never_fires_warning, row_warnings, warnings};

/// Text quoted for each server exactly as the simulator's statements quote it ([`apply`]'s
/// rules), for other statements Sundial shows a DBA (the one that runs a job now).
pub mod quote {
    /// T-SQL NVARCHAR literal: `N'…'`, `'` doubled.
    pub fn tsql_nvarchar(s: &str) -> String {
        super::apply::tsql_n(s)
    }
    /// PostgreSQL literal: `'…'`, `'` doubled (standard_conforming_strings).
    pub fn pg_literal(s: &str) -> String {
        super::apply::pg(s)
    }
    /// PostgreSQL identifier: `"…"`, `"` doubled.
    pub fn pg_ident(s: &str) -> String {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
    /// MySQL identifier: backticks, `` ` `` doubled.
    pub fn mysql_ident(s: &str) -> String {
        super::apply::my_ident(s)
    }
    /// Text safe inside a `--` comment: its line breaks become spaces, so no value can end
    /// the comment and become a statement.
    pub fn comment(s: &str) -> String {
        super::apply::one_line(s)
    }
}

use super::Schedule;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The source a schedule comes from. Its [`key`](Dialect::key) is stable (it goes into URLs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Dialect {
    /// SQL Server Agent: `msdb.dbo.sysschedules`.
    #[serde(rename = "agent")]
    Agent,
    /// pg_cron: `cron.job`.
    #[serde(rename = "cron")]
    Cron,
    /// MySQL / MariaDB event scheduler: `information_schema.EVENTS`.
    #[serde(rename = "mysql_event")]
    MysqlEvent,
    /// Seed 002: the MySQL stored-procedure scheduler's `job` table.
    #[serde(rename = "job_table")]
    JobTable,
    /// Seed 003: the Service Broker scheduler's `ScheduledJobs` + `JobSchedules`.
    #[serde(rename = "service_broker")]
    ServiceBroker,
    /// Seed 004: Primentra's `SchedulerConfigurations`.
    #[serde(rename = "primentra")]
    Primentra,
    /// pgAgent: `pgagent.pga_schedule`.
    #[serde(rename = "pgagent")]
    PgAgent,
}

impl Dialect {
    pub const ALL: [Dialect; 7] = [
        Dialect::Agent,
        Dialect::Cron,
        Dialect::MysqlEvent,
        Dialect::JobTable,
        Dialect::ServiceBroker,
        Dialect::Primentra,
        Dialect::PgAgent,
    ];

    /// The stable key for URLs: `agent`, `cron`, `mysql_event`, `job_table`, `service_broker`,
    /// `primentra`, `pgagent`.
    pub fn key(self) -> &'static str {
        match self {
            Dialect::Agent => "agent",
            Dialect::Cron => "cron",
            Dialect::MysqlEvent => "mysql_event",
            Dialect::JobTable => "job_table",
            Dialect::ServiceBroker => "service_broker",
            Dialect::Primentra => "primentra",
            Dialect::PgAgent => "pgagent",
        }
    }

    /// The dialect of a [`key`](Dialect::key) (any case, surrounding blanks ignored). The
    /// `kind` tags of [`Schedule`]'s serde form, and their first spellings (`seed002` …), are accepted too.
    pub fn parse(key: &str) -> Option<Dialect> {
        let k = key.trim().to_ascii_lowercase();
        Dialect::ALL.into_iter().find(|d| d.key() == k).or(match k.as_str() {
            "seed002" => Some(Dialect::JobTable),
            "seed003" => Some(Dialect::ServiceBroker),
            "seed004" => Some(Dialect::Primentra),
            _ => None,
        })
    }

    /// A human label: "SQL Server Agent", "pg_cron", "MySQL / MariaDB event", "MySQL job
    /// table", "Service Broker scheduler", "Primentra scheduler".
    pub fn label(self) -> &'static str {
        match self {
            Dialect::Agent => "SQL Server Agent",
            Dialect::Cron => "pg_cron",
            Dialect::MysqlEvent => "MySQL / MariaDB event",
            Dialect::JobTable => "MySQL job table",
            Dialect::ServiceBroker => "Service Broker scheduler",
            Dialect::Primentra => "Primentra scheduler",
            Dialect::PgAgent => "pgAgent",
        }
    }

    /// The table a row of this dialect comes from, as the DBA queries it.
    pub fn table(self) -> &'static str {
        match self {
            Dialect::Agent => "msdb.dbo.sysschedules",
            Dialect::Cron => "cron.job",
            Dialect::MysqlEvent => "information_schema.EVENTS",
            Dialect::JobTable => "job",
            Dialect::ServiceBroker => "ScheduledJobs joined with JobSchedules",
            Dialect::Primentra => "SchedulerConfigurations",
            Dialect::PgAgent => "pgagent.pga_schedule",
        }
    }

    /// The dialect a schedule is written in.
    pub fn of(schedule: &Schedule) -> Dialect {
        match schedule {
            Schedule::Agent(_) => Dialect::Agent,
            Schedule::Cron(_) => Dialect::Cron,
            Schedule::MysqlEvent(_) => Dialect::MysqlEvent,
            Schedule::JobTable(_) => Dialect::JobTable,
            Schedule::ServiceBroker(_) => Dialect::ServiceBroker,
            Schedule::Primentra(_) => Dialect::Primentra,
            Schedule::PgAgent(_) => Dialect::PgAgent,
        }
    }
}

/// The key.
impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl FromStr for Dialect {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::parse(s).ok_or_else(|| {
            let keys: Vec<&str> = Dialect::ALL.iter().map(|d| d.key()).collect();
            format!("unknown dialect '{}': one of {}", s.trim(), keys.join(", "))
        })
    }
}

/// Which row an [`apply_statement`] changes: the key columns of the scheduler's table.
///
/// Every field is optional. [`parse_row_full`] fills what the pasted row holds; a key the
/// target lacks is taken from the original schedule where the schedule carries it (MySQL's
/// `EVENT_SCHEMA`/`EVENT_NAME`, seed 002's `job_id`/`job_owner`/`job_name`, seed 003's
/// `JobScheduleId`, seed 004's `EntityId`). When no key is known at all, the statement names
/// the key as a `<placeholder>`, which is a syntax error until the DBA fills it in (so it can
/// never change every row).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "dialect")]
pub enum Target {
    /// `sp_update_schedule @schedule_id = …` (preferred) or `@name = N'…'`.
    #[serde(rename = "agent")]
    Agent {
        #[serde(default)]
        schedule_id: Option<i64>,
        #[serde(default)]
        name: Option<String>,
    },
    /// `cron.alter_job(job_id := …)`; with only `jobname`, the id is looked up in `cron.job`.
    #[serde(rename = "cron")]
    Cron {
        #[serde(default)]
        jobid: Option<i64>,
        #[serde(default)]
        jobname: Option<String>,
    },
    /// `ALTER EVENT `schema`.`name``.
    #[serde(rename = "mysql_event")]
    MysqlEvent {
        #[serde(default)]
        schema: Option<String>,
        #[serde(default)]
        name: Option<String>,
    },
    /// `WHERE job_id = …` (preferred) or `WHERE job_owner = … AND job_name = …` (unique).
    #[serde(rename = "job_table")]
    JobTable {
        #[serde(default)]
        job_id: Option<i64>,
        #[serde(default)]
        job_owner: Option<String>,
        #[serde(default)]
        job_name: Option<String>,
    },
    /// `ScheduledJobs.ID` and `JobSchedules.ID` (= `ScheduledJobs.JobScheduleId`).
    #[serde(rename = "service_broker")]
    ServiceBroker {
        #[serde(default)]
        scheduled_job_id: Option<i64>,
        #[serde(default)]
        job_schedule_id: Option<i64>,
    },
    /// `SchedulerConfigurations.Id` (preferred) or its unique `EntityId`.
    #[serde(rename = "primentra")]
    Primentra {
        #[serde(default)]
        id: Option<i64>,
        #[serde(default)]
        entity_id: Option<i64>,
    },
    /// `pgagent.pga_schedule.jscid`.
    #[serde(rename = "pgagent")]
    PgAgent {
        #[serde(default)]
        jscid: Option<i64>,
    },
}

impl Target {
    /// A target with no key known yet.
    pub fn none(dialect: Dialect) -> Target {
        match dialect {
            Dialect::Agent => Target::Agent { schedule_id: None, name: None },
            Dialect::Cron => Target::Cron { jobid: None, jobname: None },
            Dialect::MysqlEvent => Target::MysqlEvent { schema: None, name: None },
            Dialect::JobTable => Target::JobTable { job_id: None, job_owner: None, job_name: None },
            Dialect::ServiceBroker => Target::ServiceBroker { scheduled_job_id: None, job_schedule_id: None },
            Dialect::Primentra => Target::Primentra { id: None, entity_id: None },
            Dialect::PgAgent => Target::PgAgent { jscid: None },
        }
    }

    /// `msdb.dbo.sysschedules.schedule_id`.
    pub fn agent(schedule_id: i64) -> Target {
        Target::Agent { schedule_id: Some(schedule_id), name: None }
    }

    /// `cron.job.jobid`.
    pub fn cron(jobid: i64) -> Target {
        Target::Cron { jobid: Some(jobid), jobname: None }
    }

    /// An event by schema (database) and name.
    pub fn mysql_event(schema: impl Into<String>, name: impl Into<String>) -> Target {
        Target::MysqlEvent { schema: Some(schema.into()), name: Some(name.into()) }
    }

    pub fn dialect(&self) -> Dialect {
        match self {
            Target::Agent { .. } => Dialect::Agent,
            Target::Cron { .. } => Dialect::Cron,
            Target::MysqlEvent { .. } => Dialect::MysqlEvent,
            Target::JobTable { .. } => Dialect::JobTable,
            Target::ServiceBroker { .. } => Dialect::ServiceBroker,
            Target::Primentra { .. } => Dialect::Primentra,
            Target::PgAgent { .. } => Dialect::PgAgent,
        }
    }
}
