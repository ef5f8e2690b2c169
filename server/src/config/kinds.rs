//! The registry of source kinds: every kind Sundial reads, described once ([`KINDS`], one row
//! each): its name in the configuration and the older spelling still accepted, the scheduler it
//! reads (whose words pages use: `sundial_model::schedulers`), what it asks of the
//! configuration and of Sundial's store. Its reader is `crate::sources::open`'s arm for it;
//! how it says its scheduler stopped is a typed finding (`sundial_engine::Finding`) its reader
//! gives; its statement dialect is the engine's. Nothing else tells kinds apart by name.
use super::TablesEngine;
use sundial_model::Scheduler;

/// Everything Sundial knows of a source kind but its reader.
#[derive(Debug)]
pub struct KindInfo {
    pub kind: SourceKind,
    /// The configuration's spelling (`kind = "…"`), which messages and pages show.
    pub name: &'static str,
    /// The older spelling still accepted for it, if any.
    pub alias: Option<&'static str>,
    /// What starts the jobs of an instance of this kind, as pages name it.
    pub scheduler: Scheduler,
    /// Its schedules live in tables of Sundial's generic table reader (the home-grown
    /// schedulers), which may sit in SQL Server, PostgreSQL, MySQL or SQLite.
    pub reads_tables: bool,
    /// Where its tables are when the configuration names neither `engine` nor a `path`.
    pub default_engine: TablesEngine,
    /// It needs Sundial's store: it remembers between polls what the source forgets.
    pub needs_store: bool,
    /// Its jobs are listed in the configuration (`[[instance.job]]`), not read.
    pub lists_jobs: bool,
    /// It reads a SQLite file and nothing else: `path` is required.
    pub needs_path: bool,
}

/// The registry: one line per kind makes its variant of [`SourceKind`], its place in
/// [`SourceKind::ALL`] and its row of [`KINDS`].
macro_rules! registry {
    ($($variant:ident { $($field:ident: $value:expr),* $(,)? })*) => {
        /// The kinds of source Sundial reads, each named by the scheduler it reads: the `kind` of an
        /// `[[instance]]`. What each is and asks is its row of [`KINDS`] ([`SourceKind::info`]).
        ///
        /// The home-grown schedulers were first named after the seeds that describe them (`seed001` …
        /// `seed004`); those spellings stay accepted as aliases, so existing files keep loading, but
        /// messages and pages say the new names.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum SourceKind {
            $($variant,)*
        }

        /// How many kinds there are.
        const COUNT: usize = [$(SourceKind::$variant),*].len();

        /// Every kind, in the order messages list them: the one registry.
        pub static KINDS: [KindInfo; COUNT] = [$(KindInfo { kind: SourceKind::$variant, $($field: $value),* }),*];

        impl SourceKind {
            /// Every kind, in the order messages list them ([`KINDS`]'s).
            pub const ALL: [SourceKind; COUNT] = [$(SourceKind::$variant),*];
        }
    };
}

// A kind: its variant, its configuration name and older spelling, its scheduler,
// and what it asks of the configuration and of Sundial's store. Its reader is its arm of
// `crate::sources::open`.
#[rustfmt::skip]
registry! {
    Mssql { name: "mssql", alias: None, scheduler: Scheduler::SqlAgent, reads_tables: false, default_engine: TablesEngine::SqlServer, needs_store: false, lists_jobs: false, needs_path: false }
    PgCron { name: "pg_cron", alias: None, scheduler: Scheduler::PgCron, reads_tables: false, default_engine: TablesEngine::Postgres, needs_store: true, lists_jobs: false, needs_path: false }
    PgAgent { name: "pgagent", alias: None, scheduler: Scheduler::PgAgent, reads_tables: false, default_engine: TablesEngine::Postgres, needs_store: false, lists_jobs: false, needs_path: false }
    MysqlEvents { name: "mysql_events", alias: None, scheduler: Scheduler::MysqlEvents, reads_tables: false, default_engine: TablesEngine::MySql, needs_store: true, lists_jobs: false, needs_path: false }
    JobActivity { name: "jobactivity", alias: Some("seed001"), scheduler: Scheduler::JobActivity, reads_tables: true, default_engine: TablesEngine::SqlServer, needs_store: false, lists_jobs: true, needs_path: false }
    MysqlJobTable { name: "mysql_job_table", alias: Some("seed002"), scheduler: Scheduler::MysqlJobTable, reads_tables: true, default_engine: TablesEngine::MySql, needs_store: true, lists_jobs: false, needs_path: false }
    ServiceBroker { name: "service_broker", alias: Some("seed003"), scheduler: Scheduler::ServiceBroker, reads_tables: true, default_engine: TablesEngine::SqlServer, needs_store: false, lists_jobs: false, needs_path: false }
    Primentra { name: "primentra", alias: Some("seed004"), scheduler: Scheduler::Primentra, reads_tables: true, default_engine: TablesEngine::SqlServer, needs_store: false, lists_jobs: false, needs_path: false }
    SqliteDemo { name: "sqlite_demo", alias: None, scheduler: Scheduler::SqlAgent, reads_tables: false, default_engine: TablesEngine::Sqlite, needs_store: false, lists_jobs: false, needs_path: true }
}

impl SourceKind {
    /// Its row of the registry.
    pub fn info(self) -> &'static KindInfo {
        &KINDS[self as usize]
    }

    /// The configuration's spelling (`kind = "…"`), which messages and pages show.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The older spelling still accepted for this kind, if any (`seed001` … `seed004`).
    pub fn alias(self) -> Option<&'static str> {
        self.info().alias
    }

    /// The kind a configuration names, by its name or its older alias (exact spelling).
    pub fn parse(name: &str) -> Option<SourceKind> {
        KINDS.iter().find(|k| k.name == name || k.alias == Some(name)).map(|k| k.kind)
    }

    /// What starts the jobs of an instance of this kind, as pages name it (sent with each
    /// instance: `InstanceStatus::scheduler`).
    pub fn scheduler(self) -> Scheduler {
        self.info().scheduler.clone()
    }

    /// Whether its schedules live in tables of Sundial's generic table reader (the
    /// home-grown schedulers), which may sit in SQL Server, PostgreSQL, MySQL or SQLite.
    pub fn reads_tables(self) -> bool {
        self.info().reads_tables
    }
}

impl std::fmt::Display for SourceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A kind is written as its name.
impl serde::Serialize for SourceKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl std::str::FromStr for SourceKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SourceKind::parse(s).ok_or_else(|| format!("not a source kind ({})", kinds_list()))
    }
}

/// What `kind` takes: every name, then the older spellings still accepted.
pub(super) fn kinds_list() -> String {
    let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
    let aliases: Vec<String> = KINDS.iter().filter_map(|k| k.alias.map(|a| format!("{a} = {}", k.name))).collect();
    format!("{}; older spellings still accepted: {}", names.join(", "), aliases.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_own_row_in_its_order() {
        for (i, k) in SourceKind::ALL.into_iter().enumerate() {
            assert_eq!(KINDS[i].kind, k, "row {i}");
        }
    }

    #[test]
    fn pages_learn_each_kinds_scheduler_and_its_wire_name_is_the_kinds() {
        // The wire spells a scheduler as the kind that reads it (SQL Agent aside: two kinds).
        for k in SourceKind::ALL {
            let json = serde_json::to_value(k.scheduler()).unwrap();
            if k.scheduler() != Scheduler::SqlAgent {
                assert_eq!(json, k.name(), "{k}: its scheduler's JSON form is its name");
            }
        }
        assert_eq!(SourceKind::SqliteDemo.scheduler(), Scheduler::SqlAgent);
        assert_eq!(SourceKind::parse("seed002").map(SourceKind::scheduler), Some(Scheduler::MysqlJobTable));
    }
}
