//! The statement a DBA runs to apply an edited schedule. Sundial never runs it.
//!
//! Only what differs from the original is written (everything the proposed schedule sets
//! when there is no original). Values are compared as values, not as text: `2026-01-01
//! 00:00:00.000000` and `2026-01-01T00:00:00` are the same STARTS.
//!
//! Quoting, per server:
//! - **T-SQL**: `'…'` with `'` doubled, `N'…'` for NVARCHAR columns; DATETIMEs as
//!   `'2026-01-01T08:00:00'` (ISO 8601 with the `T`, read the same whatever the session's
//!   language and DATEFORMAT).
//! - **PostgreSQL**: `'…'` with `'` doubled (standard_conforming_strings, on by default since
//!   9.1, so a backslash is an ordinary character).
//! - **MySQL**: `'…'` with `'` doubled and `\` doubled (the default sql_mode, without
//!   NO_BACKSLASH_ESCAPES); identifiers in backticks with `` ` `` doubled.
//!
//! Text that comes from the schedule and goes into a `--` comment has its line breaks
//! replaced, so that no value can end the comment and become a statement.
//!
//! A statement whose row key is unknown names the key as `<placeholder>`: a syntax error until
//! the DBA fills it in, so it can never update every row.
use super::super::Schedule;
use super::super::agent::AgentSchedule;
use super::super::cron::CronSchedule;
use super::super::dialect::parse_timestamp;
use super::super::job_table::JobTableRow;
use super::super::mysql_event::MysqlEvent;
use super::super::pgagent::PgAgentSchedule;
use super::super::primentra::SchedulerConfiguration;
use super::super::service_broker::ServiceBrokerJob;
use super::{Dialect, Row, Target};
use chrono::{NaiveDateTime, Timelike};

const NO_CHANGE: &str = "-- No change: the proposed schedule is the same as the original.";

/// The statement that applies `proposed` to the row `target` names, as text for the DBA:
///
/// - Agent: `EXEC msdb.dbo.sp_update_schedule @schedule_id = 12, @freq_type = 8, …;` with
///   every parameter whose column differs from the original (all of them without one).
/// - pg_cron: `SELECT cron.alter_job(job_id := 42, schedule := '*/5 * * * *');` (pg_cron 1.4+).
/// - MySQL event: `ALTER EVENT `db`.`name` ON SCHEDULE EVERY 1 DAY STARTS '…' ENDS '…';` or
///   `… AT '…'`, with `ON COMPLETION …`, `RENAME TO …` and `ENABLE` / `DISABLE` / `DISABLE ON
///   SLAVE` (MariaDB's and MySQL's spelling; MySQL 8.0.22+ also reads `ON REPLICA`) when they
///   change; preceded by
///   `SET time_zone = '…';` when the schedule changes, because `ALTER EVENT` reads the times
///   in, and gives the event, the session's time zone.
/// - Job table (seed 002): `UPDATE job SET … WHERE job_id = …;`.
/// - Service Broker (seed 003): `UPDATE JobSchedules SET … WHERE ID = …;` and/or `UPDATE
///   ScheduledJobs SET … WHERE ID = …;` (a recurring schedule for a job that had none is
///   created with the article's `usp_AddJobSchedule`), and `EXEC usp_StopScheduledJob` /
///   `usp_StartScheduledJob` for `IsEnabled`, which ends or starts the Service Broker timer.
/// - Primentra (seed 004): `UPDATE SchedulerConfigurations SET … WHERE Id = …;`.
/// - pgAgent: `UPDATE pgagent.pga_schedule SET … WHERE jscid = …;` (its trigger then
///   recomputes the job's next run).
///
/// When `original` is of another dialect than `proposed` it is ignored (a comment says so);
/// so is a `target` of another dialect. Nothing to change gives a one-line comment.
pub fn apply_statement(original: Option<&Schedule>, proposed: &Schedule, target: &Target) -> String {
    apply(original, proposed, target, None)
}

/// [`apply_statement`] for parsed rows: the same statements, and pg_cron's `active` (which
/// is part of the [`Row`], not of its schedule) as `active := false` / `true` in
/// `cron.alter_job` when it changes (or is known, without an original).
pub fn apply_row_statement(original: Option<&Row>, proposed: &Row, target: &Target) -> String {
    let active = match (original.map(|o| o.active), proposed.active) {
        (Some(before), Some(after)) if before != Some(after) => Some(after),
        (None, Some(after)) => Some(after),
        _ => None,
    };
    apply(original.map(|o| &o.schedule), &proposed.schedule, target, active)
}

fn apply(original: Option<&Schedule>, proposed: &Schedule, target: &Target, cron_active: Option<bool>) -> String {
    let dialect = Dialect::of(proposed);
    let mut notes = Vec::new();
    let original = match original {
        Some(o) if Dialect::of(o) != dialect => {
            notes.push(format!(
                "-- The original is a {} schedule, not {}: every column is written.",
                Dialect::of(o).label(),
                dialect.label()
            ));
            None
        }
        o => o,
    };
    let target = if target.dialect() == dialect {
        target.clone()
    } else {
        notes.push(format!(
            "-- The target names a {} row, not {}: it is ignored.",
            target.dialect().label(),
            dialect.label()
        ));
        Target::none(dialect)
    };
    let body = match (proposed, &target) {
        (Schedule::Agent(p), Target::Agent { schedule_id, name }) => {
            let o = match original {
                Some(Schedule::Agent(o)) => Some(o),
                _ => None,
            };
            agent(o, p, *schedule_id, name.as_deref())
        }
        (Schedule::Cron(p), Target::Cron { jobid, jobname }) => {
            let o = match original {
                Some(Schedule::Cron(o)) => Some(o),
                _ => None,
            };
            cron(o, p, *jobid, jobname.as_deref(), cron_active)
        }
        (Schedule::MysqlEvent(p), Target::MysqlEvent { schema, name }) => {
            let o = match original {
                Some(Schedule::MysqlEvent(o)) => Some(o),
                _ => None,
            };
            mysql_event(o, p, schema.as_deref(), name.as_deref())
        }
        (Schedule::JobTable(p), Target::JobTable { job_id, job_owner, job_name }) => {
            let o = match original {
                Some(Schedule::JobTable(o)) => Some(o),
                _ => None,
            };
            job_table(o, p, *job_id, job_owner.as_deref(), job_name.as_deref())
        }
        (Schedule::ServiceBroker(p), Target::ServiceBroker { scheduled_job_id, job_schedule_id }) => {
            let o = match original {
                Some(Schedule::ServiceBroker(o)) => Some(o),
                _ => None,
            };
            service_broker(o, p, *scheduled_job_id, *job_schedule_id)
        }
        (Schedule::Primentra(p), Target::Primentra { id, entity_id }) => {
            let o = match original {
                Some(Schedule::Primentra(o)) => Some(o),
                _ => None,
            };
            primentra(o, p, *id, *entity_id)
        }
        (Schedule::PgAgent(p), Target::PgAgent { jscid }) => {
            let o = match original {
                Some(Schedule::PgAgent(o)) => Some(o),
                _ => None,
            };
            pgagent(o, p, *jscid)
        }
        // `target` was made to match `proposed` above.
        _ => NO_CHANGE.to_owned(),
    };
    notes.push(body);
    notes.join("\n")
}

// ---------------------------------------------------------------------------------------------
// Literals.
// ---------------------------------------------------------------------------------------------

/// T-SQL VARCHAR literal.
fn tsql(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// T-SQL NVARCHAR literal.
pub(super) fn tsql_n(s: &str) -> String {
    format!("N'{}'", s.replace('\'', "''"))
}

/// PostgreSQL literal (standard_conforming_strings).
pub(super) fn pg(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// MySQL literal (default sql_mode: backslash escapes).
fn my(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// MySQL identifier.
pub(super) fn my_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// Text safe inside a `--` comment: one line.
pub(super) fn one_line(s: &str) -> String {
    s.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect()
}

fn tsql_datetime(t: NaiveDateTime) -> String {
    if t.nanosecond() == 0 {
        format!("'{}'", t.format("%Y-%m-%dT%H:%M:%S"))
    } else {
        format!("'{}'", t.format("%Y-%m-%dT%H:%M:%S%.3f"))
    }
}

// ---------------------------------------------------------------------------------------------
// Column values compared as values.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Timestamp,
    Flag,
    /// Text compared trimmed, written as given.
    Text,
    /// Text compared and written trimmed and upper-cased (enums such as `job_status`).
    Upper,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Val {
    Null,
    Int(i64),
    Ts(NaiveDateTime),
    Flag(bool),
    Text(String),
    /// Not readable as its kind: compared and written as the text it is.
    Bad(String),
}

fn val(kind: Kind, v: Option<&str>) -> Val {
    let Some(raw) = v else { return Val::Null };
    let t = raw.trim();
    if kind != Kind::Text && (t.is_empty() || t.eq_ignore_ascii_case("null")) {
        return Val::Null;
    }
    match kind {
        Kind::Int => t.parse().map(Val::Int).unwrap_or_else(|_| Val::Bad(t.to_owned())),
        Kind::Timestamp => parse_timestamp(t).map(Val::Ts).unwrap_or_else(|| Val::Bad(t.to_owned())),
        Kind::Flag => match t.to_ascii_lowercase().as_str() {
            "1" | "true" => Val::Flag(true),
            "0" | "false" => Val::Flag(false),
            _ => Val::Bad(t.to_owned()),
        },
        Kind::Text => Val::Text(raw.to_owned()),
        Kind::Upper => Val::Text(t.to_ascii_uppercase()),
    }
}

/// Equal as values (text: trimmed).
fn same(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Text(x), Val::Text(y)) => x.trim() == y.trim(),
        _ => a == b,
    }
}

#[derive(Clone, Copy)]
enum Sql {
    Tsql { nvarchar: bool },
    Mysql,
}

fn literal(v: &Val, sql: Sql) -> String {
    match (v, sql) {
        (Val::Null, _) => "NULL".to_owned(),
        (Val::Int(n), _) => n.to_string(),
        (Val::Flag(b), _) => if *b { "1" } else { "0" }.to_owned(),
        (Val::Ts(t), Sql::Tsql { .. }) => tsql_datetime(*t),
        (Val::Ts(t), Sql::Mysql) => my(&t.format("%Y-%m-%d %H:%M:%S").to_string()),
        (Val::Text(s) | Val::Bad(s), Sql::Tsql { nvarchar: true }) => tsql_n(s),
        (Val::Text(s) | Val::Bad(s), Sql::Tsql { nvarchar: false }) => tsql(s),
        (Val::Text(s) | Val::Bad(s), Sql::Mysql) => my(s),
    }
}

/// One column of an `UPDATE`: its name, how it is compared, how it is written, and its
/// original and proposed values.
struct Column<'a> {
    name: &'static str,
    kind: Kind,
    sql: Sql,
    original: Option<Option<&'a str>>,
    proposed: Option<&'a str>,
}

impl Column<'_> {
    /// `name = literal` when the value changes (always without an original).
    fn assignment(&self) -> Option<String> {
        let p = val(self.kind, self.proposed);
        if let Some(o) = self.original {
            if same(&val(self.kind, o), &p) {
                return None;
            }
        } else if p == Val::Null {
            // Without an original, write only what the proposed schedule sets.
            return None;
        }
        Some(format!("{} = {}", self.name, literal(&p, self.sql)))
    }
}

fn changed(cols: &[Column]) -> Vec<String> {
    cols.iter().filter_map(Column::assignment).collect()
}

fn parse_id(v: Option<&str>) -> Option<i64> {
    v.and_then(|s| s.trim().parse().ok())
}

// ---------------------------------------------------------------------------------------------
// SQL Server Agent.
// ---------------------------------------------------------------------------------------------

fn agent(o: Option<&AgentSchedule>, p: &AgentSchedule, schedule_id: Option<i64>, name: Option<&str>) -> String {
    let fields = |s: &AgentSchedule| {
        [
            ("@enabled", s.enabled),
            ("@freq_type", s.freq_type),
            ("@freq_interval", s.freq_interval),
            ("@freq_subday_type", s.freq_subday_type),
            ("@freq_subday_interval", s.freq_subday_interval),
            ("@freq_relative_interval", s.freq_relative_interval),
            ("@freq_recurrence_factor", s.freq_recurrence_factor),
            ("@active_start_date", s.active_start_date),
            ("@active_end_date", s.active_end_date),
            ("@active_start_time", s.active_start_time),
            ("@active_end_time", s.active_end_time),
        ]
    };
    let before = o.map(fields);
    let params: Vec<String> = fields(p)
        .iter()
        .enumerate()
        .filter(|(i, (_, v))| before.is_none_or(|b| b[*i].1 != *v))
        .map(|(_, (n, v))| format!("{n} = {v}"))
        .collect();
    if params.is_empty() {
        return NO_CHANGE.to_owned();
    }
    let (note, key) = match (schedule_id, name) {
        (Some(id), _) => (None, format!("@schedule_id = {id}")),
        (None, Some(n)) => (None, format!("@name = {}", tsql_n(n))),
        (None, None) => (
            Some("-- Fill in the schedule's id (msdb.dbo.sysschedules.schedule_id) before running."),
            "@schedule_id = <schedule_id>".to_owned(),
        ),
    };
    let stmt = format!("EXEC msdb.dbo.sp_update_schedule {key}, {};", params.join(", "));
    match note {
        Some(n) => format!("{n}\n{stmt}"),
        None => stmt,
    }
}

// ---------------------------------------------------------------------------------------------
// pg_cron.
// ---------------------------------------------------------------------------------------------

fn cron(
    o: Option<&CronSchedule>,
    p: &CronSchedule,
    jobid: Option<i64>,
    jobname: Option<&str>,
    active: Option<bool>,
) -> String {
    let expr = p.expr.trim();
    let mut args = Vec::new();
    if o.is_none_or(|o| o.expr.trim() != expr) {
        args.push(format!("schedule := {}", pg(expr)));
    }
    if let Some(a) = active {
        args.push(format!("active := {a}"));
    }
    if args.is_empty() {
        return NO_CHANGE.to_owned();
    }
    let (note, job) = match (jobid, jobname) {
        (Some(id), _) => (None, id.to_string()),
        (None, Some(n)) => (None, format!("(SELECT jobid FROM cron.job WHERE jobname = {})", pg(n))),
        (None, None) => (Some("-- Fill in the job's id (cron.job.jobid) before running."), "<jobid>".to_owned()),
    };
    let stmt = format!("SELECT cron.alter_job(job_id := {job}, {});", args.join(", "));
    match note {
        Some(n) => format!("{n}\n{stmt}"),
        None => stmt,
    }
}

// ---------------------------------------------------------------------------------------------
// MySQL events.
// ---------------------------------------------------------------------------------------------

/// MySQL's INTERVAL_FIELD values, as `ALTER EVENT … EVERY n <unit>` takes them.
pub const MYSQL_INTERVAL_FIELDS: &[&str] = &[
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
    "MINUTE_SECOND",
    "HOUR_MINUTE",
    "HOUR_SECOND",
    "DAY_HOUR",
    "DAY_MINUTE",
    "DAY_SECOND",
    "YEAR_MONTH",
];

fn upper(v: &Option<String>) -> Option<String> {
    v.as_deref().map(|s| s.trim().to_ascii_uppercase()).filter(|s| !s.is_empty())
}

fn recurring(e: &MysqlEvent) -> bool {
    match upper(&e.event_type).as_deref() {
        Some("RECURRING") => true,
        Some(_) => false,
        None => e.interval_value.is_some(),
    }
}

/// What decides when the event runs, compared as values.
fn event_schedule(e: &MysqlEvent) -> (bool, Val, Val, Option<String>, Val, Val, Val) {
    let ts = |v: &Option<String>| val(Kind::Timestamp, v.as_deref());
    (
        recurring(e),
        ts(&e.execute_at),
        val(Kind::Text, e.interval_value.as_deref().map(|v| v.trim().trim_matches('\''))),
        upper(&e.interval_field),
        ts(&e.starts),
        ts(&e.ends),
        val(Kind::Text, e.time_zone.as_deref().map(str::trim)),
    )
}

fn event_time(v: &Option<String>) -> String {
    match v.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None => "<timestamp>".to_owned(),
        Some(t) => match parse_timestamp(t) {
            Some(n) => my(&n.format("%Y-%m-%d %H:%M:%S").to_string()),
            None => my(t),
        },
    }
}

fn mysql_event(o: Option<&MysqlEvent>, p: &MysqlEvent, schema: Option<&str>, name: Option<&str>) -> String {
    let mut alter = AlterEvent::default();
    let schedule_changed = o.is_none_or(|o| event_schedule(o) != event_schedule(p));
    if schedule_changed {
        alter.schedule(p);
    }
    alter.completion(o, p);
    // Which event: the target, else the original's own name, else the proposed one's.
    let pick = |t: Option<&str>, f: fn(&MysqlEvent) -> &Option<String>| -> Option<String> {
        t.map(str::to_owned).or_else(|| o.and_then(|o| f(o).clone())).or_else(|| f(p).clone()).filter(|s| !s.is_empty())
    };
    let schema = pick(schema, |e| &e.event_schema);
    let name = pick(name, |e| &e.event_name);
    alter.rename(p, schema.as_deref(), name.as_deref());
    // After RENAME TO: ALTER EVENT's clauses come in a fixed order.
    alter.status(o, p);
    let AlterEvent { mut notes, clauses } = alter;
    if clauses.is_empty() {
        notes.push(NO_CHANGE.to_owned());
        return notes.join("\n");
    }
    let event = match (&schema, &name) {
        (Some(s), Some(n)) => format!("{}.{}", my_ident(s), my_ident(n)),
        (None, Some(n)) => my_ident(n),
        (_, None) => {
            notes.push("-- Fill in the event's name (EVENT_SCHEMA.EVENT_NAME) before running.".to_owned());
            "<event>".to_owned()
        }
    };
    let mut out = notes;
    if schedule_changed && let Some(tz) = p.time_zone.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        out.push(format!("SET time_zone = {};", my(tz)));
    }
    out.push(format!("ALTER EVENT {event} {};", clauses.join(" ")));
    out.join("\n")
}

/// An `ALTER EVENT` being written: its clauses in the statement's order, and the notes for the
/// DBA that go before it.
#[derive(Default)]
struct AlterEvent {
    notes: Vec<String>,
    clauses: Vec<String>,
}

impl AlterEvent {
    /// `ON SCHEDULE EVERY … [STARTS …] [ENDS …]` or `ON SCHEDULE AT …`, as proposed.
    fn schedule(&mut self, p: &MysqlEvent) {
        if recurring(p) {
            let value = self.interval_value(p);
            let unit = self.interval_unit(p);
            let mut c = format!("ON SCHEDULE EVERY {value} {unit}");
            if p.starts.as_deref().is_some_and(|t| !t.trim().is_empty()) {
                c.push_str(&format!(" STARTS {}", event_time(&p.starts)));
            }
            if p.ends.as_deref().is_some_and(|t| !t.trim().is_empty()) {
                c.push_str(&format!(" ENDS {}", event_time(&p.ends)));
            }
            self.clauses.push(c);
        } else {
            self.clauses.push(format!("ON SCHEDULE AT {}", event_time(&p.execute_at)));
        }
    }

    /// `INTERVAL_VALUE` as written after EVERY: bare digits, else quoted; a placeholder when
    /// missing.
    fn interval_value(&mut self, p: &MysqlEvent) -> String {
        let value = p.interval_value.as_deref().map(|v| v.trim().trim_matches('\'')).filter(|v| !v.is_empty());
        match value {
            Some(v) if v.bytes().all(|b| b.is_ascii_digit()) => v.to_owned(),
            Some(v) => my(v),
            None => {
                self.notes.push("-- Fill in the interval (INTERVAL_VALUE) before running.".to_owned());
                "<interval>".to_owned()
            }
        }
    }

    /// `INTERVAL_FIELD` when it is a MySQL unit; a placeholder otherwise.
    fn interval_unit(&mut self, p: &MysqlEvent) -> String {
        match upper(&p.interval_field) {
            Some(u) if MYSQL_INTERVAL_FIELDS.contains(&u.as_str()) => u,
            Some(u) => {
                self.notes.push(format!(
                    "-- INTERVAL_FIELD '{}' is not a MySQL interval unit: fill in one of {}.",
                    one_line(&u),
                    MYSQL_INTERVAL_FIELDS.join(", ")
                ));
                "<unit>".to_owned()
            }
            None => {
                self.notes.push("-- Fill in the interval's unit (INTERVAL_FIELD) before running.".to_owned());
                "<unit>".to_owned()
            }
        }
    }

    /// `ON COMPLETION [NOT] PRESERVE` when it changes.
    fn completion(&mut self, o: Option<&MysqlEvent>, p: &MysqlEvent) {
        let completion = upper(&p.on_completion);
        if completion.is_some() && o.is_none_or(|o| upper(&o.on_completion) != completion) {
            match completion.as_deref() {
                Some("PRESERVE") => self.clauses.push("ON COMPLETION PRESERVE".to_owned()),
                Some("NOT PRESERVE") => self.clauses.push("ON COMPLETION NOT PRESERVE".to_owned()),
                Some(other) => self.notes.push(format!(
                    "-- ON_COMPLETION '{}' is neither PRESERVE nor NOT PRESERVE: left as it is.",
                    one_line(other)
                )),
                None => {}
            }
        }
    }

    /// `RENAME TO …` when the proposed name differs from the event's (`name`, in `schema`).
    fn rename(&mut self, p: &MysqlEvent, schema: Option<&str>, name: Option<&str>) {
        if let (Some(n), Some(new)) = (name, p.event_name.as_ref().filter(|s| !s.is_empty()))
            && n != new
        {
            let to = match schema {
                Some(s) => format!("{}.{}", my_ident(s), my_ident(new)),
                None => my_ident(new),
            };
            self.clauses.push(format!("RENAME TO {to}"));
        }
    }

    /// `ENABLE`, `DISABLE` or `DISABLE ON SLAVE` when `STATUS` changes.
    fn status(&mut self, o: Option<&MysqlEvent>, p: &MysqlEvent) {
        let status = upper(&p.status);
        if status.is_some() && o.is_none_or(|o| upper(&o.status) != status) {
            match status.as_deref() {
                Some("ENABLED") => self.clauses.push("ENABLE".to_owned()),
                Some("DISABLED") => self.clauses.push("DISABLE".to_owned()),
                Some("SLAVESIDE_DISABLED") => self.clauses.push("DISABLE ON SLAVE".to_owned()),
                Some(other) => self.notes.push(format!(
                    "-- STATUS '{}' is not ENABLED, DISABLED or SLAVESIDE_DISABLED: left as it is.",
                    one_line(other)
                )),
                None => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Seed 002: the job table.
// ---------------------------------------------------------------------------------------------

fn job_table(
    o: Option<&JobTableRow>,
    p: &JobTableRow,
    job_id: Option<i64>,
    job_owner: Option<&str>,
    job_name: Option<&str>,
) -> String {
    let col = |name, kind, f: fn(&JobTableRow) -> &Option<String>| Column {
        name,
        kind,
        sql: Sql::Mysql,
        original: o.map(|o| f(o).as_deref()),
        proposed: f(p).as_deref(),
    };
    let sets = changed(&[
        col("job_schedule_start", Kind::Timestamp, |j| &j.job_schedule_start),
        col("job_schedule_finish", Kind::Timestamp, |j| &j.job_schedule_finish),
        col("job_schedule_interval", Kind::Int, |j| &j.job_schedule_interval),
        col("job_status", Kind::Upper, |j| &j.job_status),
    ]);
    if sets.is_empty() {
        return NO_CHANGE.to_owned();
    }
    let mut out = Vec::new();
    let own_id = o.and_then(|o| parse_id(o.job_id.as_deref())).or_else(|| parse_id(p.job_id.as_deref()));
    let own_name = |f: fn(&JobTableRow) -> &Option<String>| o.and_then(|o| f(o).clone()).or_else(|| f(p).clone());
    let wher = match (job_id, job_owner, job_name) {
        (Some(id), _, _) => format!("job_id = {id}"),
        (None, Some(ow), Some(n)) => format!("job_owner = {} AND job_name = {}", my(ow), my(n)),
        _ => match (own_id, own_name(|j| &j.job_owner), own_name(|j| &j.job_name)) {
            (Some(id), _, _) => format!("job_id = {id}"),
            (None, Some(ow), Some(n)) => {
                format!("job_owner = {} AND job_name = {}", my(&ow), my(&n))
            }
            _ => {
                out.push("-- Fill in the job's id (job.job_id) before running.".to_owned());
                "job_id = <job_id>".to_owned()
            }
        },
    };
    if sets.iter().any(|s| s.starts_with("job_schedule_start ")) {
        out.push(
            "-- job$run reads job_schedule_start when it starts: a runner already going keeps the old start."
                .to_owned(),
        );
    }
    if o.is_some() && sets.iter().any(|s| s == "job_status = 'ENABLED'") {
        out.push("-- ENABLED starts no runner by itself: call job$run for this job.".to_owned());
    }
    out.push(format!("UPDATE job SET {} WHERE {wher};", sets.join(", ")));
    out.join("\n")
}

// ---------------------------------------------------------------------------------------------
// Seed 003: Service Broker's ScheduledJobs + JobSchedules.
// ---------------------------------------------------------------------------------------------

fn service_broker(
    o: Option<&ServiceBrokerJob>,
    p: &ServiceBrokerJob,
    scheduled_job_id: Option<i64>,
    job_schedule_id: Option<i64>,
) -> String {
    let edit = BrokerEdit { o, p };
    let schedule_cols = edit.schedule_columns();
    let schedule_sets = changed(&schedule_cols);
    let recurring_p = edit.recurring();
    let mut out: Vec<String> = Vec::new();
    let mut job_sets: Vec<String> = Vec::new();
    let mut new_schedule_row = false;
    if !schedule_sets.is_empty() && recurring_p {
        match edit.job_schedule_id(job_schedule_id) {
            Some(id) => {
                out.push(format!(
                    "-- Every job whose JobScheduleId is {id} gets this schedule (JobSchedules rows can be shared)."
                ));
                out.push(format!("UPDATE JobSchedules SET {} WHERE ID = {id};", schedule_sets.join(", ")));
            }
            None => {
                // No JobSchedules row yet (a run-once job becoming recurring): the article's
                // procedure creates one.
                out.extend(add_job_schedule(&schedule_cols));
                job_sets.push("JobScheduleId = @JobScheduleId".to_owned());
                new_schedule_row = true;
            }
        }
    }
    job_sets.extend(edit.job_sets());
    if !new_schedule_row {
        job_sets.extend(edit.job_schedule_id_set(recurring_p));
    }
    let toggle = edit.toggle();
    if out.is_empty() && job_sets.is_empty() && toggle.is_none() {
        return NO_CHANGE.to_owned();
    }
    let id = match scheduled_job_id {
        Some(id) => id.to_string(),
        None => {
            if !job_sets.is_empty() || toggle.is_some() {
                out.insert(0, "-- Fill in the job's id (ScheduledJobs.ID) before running.".to_owned());
            }
            "<ID>".to_owned()
        }
    };
    if !job_sets.is_empty() {
        out.push(format!("UPDATE ScheduledJobs SET {} WHERE ID = {id};", job_sets.join(", ")));
    }
    let retimed = !schedule_sets.is_empty()
        || job_sets.iter().any(|s| s.starts_with("ValidFrom ") || s.starts_with("JobScheduleId "));
    out.extend(timer_statement(&id, toggle, retimed && broker_enabled(p) != Some(false)));
    out.join("\n")
}

/// A Service Broker edit: the original job (if known) and the proposed one.
#[derive(Clone, Copy)]
struct BrokerEdit<'a> {
    o: Option<&'a ServiceBrokerJob>,
    p: &'a ServiceBrokerJob,
}

impl<'a> BrokerEdit<'a> {
    /// The `JobSchedules` columns: FrequencyType, Frequency, AbsoluteSubFrequency, the two
    /// relative parts, RunAtInSecondsFromMidnight.
    fn schedule_columns(self) -> [Column<'a>; 6] {
        let BrokerEdit { o, p } = self;
        let int = |name, f: fn(&ServiceBrokerJob) -> &Option<String>| Column {
            name,
            kind: Kind::Int,
            sql: Sql::Tsql { nvarchar: false },
            original: o.map(|o| f(o).as_deref()),
            proposed: f(p).as_deref(),
        };
        [
            int("FrequencyType", |j| &j.frequency_type),
            int("Frequency", |j| &j.frequency),
            Column {
                name: "AbsoluteSubFrequency",
                kind: Kind::Text,
                sql: Sql::Tsql { nvarchar: false },
                original: o.map(|o| o.absolute_sub_frequency.as_deref()),
                proposed: p.absolute_sub_frequency.as_deref(),
            },
            int("MontlyRelativeSubFrequencyWhich", |j| &j.relative_which),
            int("MontlyRelativeSubFrequencyWhat", |j| &j.relative_what),
            int("RunAtInSecondsFromMidnight", |j| &j.run_at),
        ]
    }

    /// True when the proposed job recurs (a FrequencyType, and not the run-once JobScheduleId -1).
    fn recurring(self) -> bool {
        self.p.frequency_type.as_deref().is_some_and(|s| !s.trim().is_empty())
            && self.p.job_schedule_id.as_deref().map(str::trim) != Some("-1")
    }

    /// The `JobSchedules` row to update: the target's, else the proposed or original job's
    /// (never -1, which means run once).
    fn job_schedule_id(self, target: Option<i64>) -> Option<i64> {
        target
            .or_else(|| parse_id(self.p.job_schedule_id.as_deref()))
            .or_else(|| self.o.and_then(|o| parse_id(o.job_schedule_id.as_deref())))
            .filter(|id| *id != -1)
    }

    /// The changed `ScheduledJobs` columns besides `JobScheduleId`: JobName, ValidFrom, NextRunOn.
    fn job_sets(self) -> Vec<String> {
        let BrokerEdit { o, p } = self;
        let dt = |name, f: fn(&ServiceBrokerJob) -> &Option<String>| Column {
            name,
            kind: Kind::Timestamp,
            sql: Sql::Tsql { nvarchar: false },
            original: o.map(|o| f(o).as_deref()),
            proposed: f(p).as_deref(),
        };
        changed(&[
            Column {
                name: "JobName",
                kind: Kind::Text,
                sql: Sql::Tsql { nvarchar: true },
                original: o.map(|o| o.job_name.as_deref()),
                proposed: p.job_name.as_deref(),
            },
            dt("ValidFrom", |j| &j.valid_from),
            dt("NextRunOn", |j| &j.next_run_on),
        ])
    }

    /// `JobScheduleId = …` when it changes: the proposed id for a recurring job, -1 for a
    /// run-once one.
    fn job_schedule_id_set(self, recurring: bool) -> Option<String> {
        let want = if recurring { self.p.job_schedule_id.as_deref() } else { Some("-1") };
        changed(&[Column {
            name: "JobScheduleId",
            kind: Kind::Int,
            sql: Sql::Tsql { nvarchar: false },
            original: self.o.map(|o| o.job_schedule_id.as_deref()),
            proposed: want,
        }])
        .pop()
    }

    /// `IsEnabled` as proposed, when it changes (or is known, without an original).
    fn toggle(self) -> Option<bool> {
        match (self.o.map(broker_enabled), broker_enabled(self.p)) {
            (Some(before), Some(after)) if before != Some(after) => Some(after),
            (None, Some(after)) => Some(after),
            _ => None,
        }
    }
}

/// A job's `IsEnabled` flag, when readable.
fn broker_enabled(j: &ServiceBrokerJob) -> Option<bool> {
    match val(Kind::Flag, j.is_enabled.as_deref()) {
        Val::Flag(b) => Some(b),
        _ => None,
    }
}

/// The article's `usp_AddJobSchedule`, creating a `JobSchedules` row with the proposed values
/// that are set (its id in `@JobScheduleId`).
fn add_job_schedule(schedule_cols: &[Column; 6]) -> [String; 2] {
    let v = |c: &Column| literal(&val(c.kind, c.proposed), c.sql);
    let mut args = vec!["@JobScheduleId OUT".to_owned()];
    for (param, c) in [
        ("@RunAtInSecondsFromMidnight", &schedule_cols[5]),
        ("@FrequencyType", &schedule_cols[0]),
        ("@Frequency", &schedule_cols[1]),
        ("@AbsoluteSubFrequency", &schedule_cols[2]),
        ("@MontlyRelativeSubFrequencyWhich", &schedule_cols[3]),
        ("@MontlyRelativeSubFrequencyWhat", &schedule_cols[4]),
    ] {
        if val(c.kind, c.proposed) != Val::Null {
            args.push(format!("{param} = {}", v(c)));
        }
    }
    ["DECLARE @JobScheduleId INT;".to_owned(), format!("EXEC usp_AddJobSchedule {};", args.join(", "))]
}

/// What happens to the job's Service Broker timer: stopped or started with `IsEnabled`
/// (`toggle`), else, when the schedule was `retimed` on an enabled job, how to re-arm it.
fn timer_statement(id: &str, toggle: Option<bool>, retimed: bool) -> Option<String> {
    match toggle {
        Some(false) => Some(format!("EXEC usp_StopScheduledJob {id}; -- ends the job's timer and disables it")),
        Some(true) => Some(format!("EXEC usp_StartScheduledJob {id}; -- enables the job and sets its timer")),
        None if retimed => Some(format!(
            "-- The timer already set keeps its time: the new schedule counts from the next run. To re-arm it now: EXEC usp_StopScheduledJob {id}; EXEC usp_StartScheduledJob {id};"
        )),
        None => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Seed 004: Primentra's SchedulerConfigurations.
// ---------------------------------------------------------------------------------------------

fn primentra(
    o: Option<&SchedulerConfiguration>,
    p: &SchedulerConfiguration,
    id: Option<i64>,
    entity_id: Option<i64>,
) -> String {
    let col = |name, kind, f: fn(&SchedulerConfiguration) -> &Option<String>| Column {
        name,
        kind,
        sql: Sql::Tsql { nvarchar: true },
        original: o.map(|o| f(o).as_deref()),
        proposed: f(p).as_deref(),
    };
    let sets = changed(&[
        col("ProcessingMode", Kind::Text, |c| &c.processing_mode),
        col("ScheduleType", Kind::Text, |c| &c.schedule_type),
        col("IntervalMinutes", Kind::Int, |c| &c.interval_minutes),
        col("RunTimes", Kind::Text, |c| &c.run_times),
        col("RunDays", Kind::Text, |c| &c.run_days),
        col("RunDaysOfMonth", Kind::Text, |c| &c.run_days_of_month),
        col("TriggerOnNewRows", Kind::Flag, |c| &c.trigger_on_new_rows),
        col("TriggerRowThreshold", Kind::Int, |c| &c.trigger_row_threshold),
        col("TriggerIdleMinutes", Kind::Int, |c| &c.trigger_idle_minutes),
        col("TriggerDebounceSeconds", Kind::Int, |c| &c.trigger_debounce_seconds),
        col("NextScheduledRun", Kind::Timestamp, |c| &c.next_scheduled_run),
        col("IsEnabled", Kind::Flag, |c| &c.is_enabled),
    ]);
    if sets.is_empty() {
        return NO_CHANGE.to_owned();
    }
    let mut out = Vec::new();
    let own_entity = o.and_then(|o| parse_id(o.entity_id.as_deref())).or_else(|| parse_id(p.entity_id.as_deref()));
    let wher = match (id, entity_id.or(own_entity)) {
        (Some(id), _) => format!("Id = {id}"),
        (None, Some(e)) => format!("EntityId = {e}"),
        (None, None) => {
            out.push("-- Fill in the row's Id (SchedulerConfigurations.Id) before running.".to_owned());
            "Id = <Id>".to_owned()
        }
    };
    let timing = ["ProcessingMode ", "ScheduleType ", "IntervalMinutes ", "RunTimes ", "RunDays ", "RunDaysOfMonth "];
    if o.is_some()
        && sets.iter().any(|s| timing.iter().any(|t| s.starts_with(t)))
        && !sets.iter().any(|s| s.starts_with("NextScheduledRun "))
        && let Some(next) = o.and_then(|o| o.next_scheduled_run.as_deref()).and_then(parse_timestamp)
    {
        out.push(format!(
            "-- NextScheduledRun stays {}: the dispatcher fires then, and computes the runs after it from the new settings.",
            next.format("%Y-%m-%d %H:%M:%S")
        ));
    }
    out.push(format!("UPDATE SchedulerConfigurations SET {} WHERE {wher};", sets.join(", ")));
    out.join("\n")
}

// ---------------------------------------------------------------------------------------------
// pgAgent's pga_schedule.
// ---------------------------------------------------------------------------------------------

fn pgagent(o: Option<&PgAgentSchedule>, p: &PgAgentSchedule, jscid: Option<i64>) -> String {
    type Field = fn(&PgAgentSchedule) -> &Option<String>;
    let cols: [(&str, Kind, Field); 8] = [
        ("jscenabled", Kind::Flag, |s| &s.jscenabled),
        ("jscstart", Kind::Text, |s| &s.jscstart),
        ("jscend", Kind::Text, |s| &s.jscend),
        ("jscminutes", Kind::Text, |s| &s.jscminutes),
        ("jschours", Kind::Text, |s| &s.jschours),
        ("jscweekdays", Kind::Text, |s| &s.jscweekdays),
        ("jscmonthdays", Kind::Text, |s| &s.jscmonthdays),
        ("jscmonths", Kind::Text, |s| &s.jscmonths),
    ];
    // A blank value is no value (NULL), whatever its kind.
    let value = |kind: Kind, v: &Option<String>| {
        val(kind, v.as_deref().filter(|t| !t.trim().is_empty() && !t.trim().eq_ignore_ascii_case("null")))
    };
    let mut sets = Vec::new();
    for (name, kind, f) in cols {
        let pv = value(kind, f(p));
        match o {
            Some(o) if same(&value(kind, f(o)), &pv) => continue,
            None if pv == Val::Null => continue,
            _ => {}
        }
        let lit = match &pv {
            Val::Null => "NULL".to_owned(),
            Val::Flag(b) => if *b { "true" } else { "false" }.to_owned(),
            Val::Int(n) => n.to_string(),
            Val::Ts(t) => pg(&t.format("%Y-%m-%d %H:%M:%S").to_string()),
            Val::Text(t) | Val::Bad(t) => pg(t.trim()),
        };
        sets.push(format!("{name} = {lit}"));
    }
    if sets.is_empty() {
        return NO_CHANGE.to_owned();
    }
    let mut out = Vec::new();
    let own = o.and_then(|o| parse_id(o.jscid.as_deref())).or_else(|| parse_id(p.jscid.as_deref()));
    let wher = match jscid.or(own) {
        Some(id) => format!("jscid = {id}"),
        None => {
            out.push("-- Fill in the schedule's jscid (pgagent.pga_schedule.jscid) before running.".to_owned());
            "jscid = <jscid>".to_owned()
        }
    };
    out.push(
        "-- pga_schedule_trigger then sets the job's jobnextrun again, computed from now() by pga_next_schedule."
            .to_owned(),
    );
    out.push(format!("UPDATE pgagent.pga_schedule SET {} WHERE {wher};", sets.join(", ")));
    out.join("\n")
}
