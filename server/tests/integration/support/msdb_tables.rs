//! What the TDS test server answers for msdb, typed as msdb types it: the columns of each of
//! Sundial's T-SQL texts (`tinyint` sysjobs.enabled and the step actions, `int`
//! sysschedules.enabled and freq_*, `int` run_date/run_time/run_duration, `nvarchar` for
//! sysname and for the `uniqueidentifier` and `datetime` columns the T-SQL converts to text),
//! and the values' helpers. Shared by `msdb_tds` and `msdb_incremental`.
use mssql_mock_tds::{ColumnDefinition as Col, ColumnValue as V, QueryResponse, Row, SqlDataType as T};

/// A text value (bounded nvarchar).
pub fn s(v: &str) -> V {
    V::NVarChar(v.to_owned())
}

/// A nullable text column: the test server writes NULL only for int and nvarchar(max)
/// columns, so nullable text is declared nvarchar(max) (tiberius decodes both the same way).
pub fn m(v: Option<&str>) -> V {
    match v {
        Some(v) => V::NVarCharMax(vec![v.encode_utf16().collect()]),
        None => V::NVarCharMaxNull,
    }
}

/// A result set of `cols` and `rows`.
pub fn table(cols: &[(&str, T)], rows: Vec<Vec<V>>) -> QueryResponse {
    QueryResponse::new(cols.iter().map(|(n, ty)| Col::new(*n, *ty)).collect(), rows.into_iter().map(Row::new).collect())
}

/// `Q_JOBS`. The owner is `SUSER_SNAME(owner_sid)`: sysname, a bounded nvarchar(128) (the test
/// server declares every bounded nvarchar as 4000 long; tiberius decodes them alike).
pub const JOBS: &[(&str, T)] = &[
    ("job_id", T::NVarChar),
    ("name", T::NVarChar),
    ("enabled", T::TinyInt),
    ("category", T::NVarCharMax),
    ("owner", T::NVarChar),
];

/// `Q_SCHEDULES`.
pub const SCHEDULES: &[(&str, T)] = &[
    ("job_id", T::NVarChar),
    ("schedule_id", T::Int),
    ("name", T::NVarChar),
    ("enabled", T::Int),
    ("freq_type", T::Int),
    ("freq_interval", T::Int),
    ("freq_subday_type", T::Int),
    ("freq_subday_interval", T::Int),
    ("freq_relative_interval", T::Int),
    ("freq_recurrence_factor", T::Int),
    ("active_start_date", T::Int),
    ("active_end_date", T::Int),
    ("active_start_time", T::Int),
    ("active_end_time", T::Int),
];

/// `Q_HORIZON`.
pub const HORIZON: &[(&str, T)] = &[
    ("job_id", T::NVarChar),
    ("oldest_id", T::Int),
    ("oldest_date", T::Int),
    ("oldest_time", T::Int),
    ("at_cap", T::Int),
];

/// `steps_sql` (and the incremental reads' history rows): sysjobhistory's step rows.
pub const STEP_HISTORY: &[(&str, T)] = &[
    ("instance_id", T::Int),
    ("job_id", T::NVarChar),
    ("step_id", T::Int),
    ("step_name", T::NVarChar),
    ("run_status", T::Int),
    ("run_date", T::Int),
    ("run_time", T::Int),
    ("run_duration", T::Int),
    ("retries_attempted", T::Int),
    ("sql_message_id", T::Int),
    ("sql_severity", T::Int),
    ("message", T::NVarChar),
];

/// `history_sql`: sysjobhistory's job outcome rows.
pub const OUTCOME_HISTORY: &[(&str, T)] = &[
    ("instance_id", T::Int),
    ("job_id", T::NVarChar),
    ("run_status", T::Int),
    ("run_date", T::Int),
    ("run_time", T::Int),
    ("run_duration", T::Int),
    ("retries_attempted", T::Int),
    ("message", T::NVarChar),
];

/// `Q_JOB_STEPS`: sysjobsteps (step_id int, step_name sysname, subsystem nvarchar(40), the
/// actions tinyint, the steps they go to int) and sysjobs.start_step_id int.
pub const JOB_STEPS: &[(&str, T)] = &[
    ("job_id", T::NVarChar),
    ("step_id", T::Int),
    ("step_name", T::NVarChar),
    ("subsystem", T::NVarChar),
    ("on_success_action", T::TinyInt),
    ("on_success_step_id", T::Int),
    ("on_fail_action", T::TinyInt),
    ("on_fail_step_id", T::Int),
    ("start_step_id", T::Int),
];

/// `Q_ACTIVITY`: sysjobactivity of the latest session.
pub const ACTIVITY: &[(&str, T)] = &[
    ("job_id", T::NVarChar),
    ("start_execution_date", T::NVarChar),
    ("stop_execution_date", T::NVarCharMax),
    ("run_requested_source", T::NVarChar),
    ("last_executed_step_id", T::Int),
    ("last_executed_step_date", T::NVarCharMax),
    ("next_scheduled_run_date", T::NVarChar),
];

/// `Q_SESSIONS`.
pub const SESSIONS: &[(&str, T)] = &[("agent_start_date", T::NVarChar)];

/// `Q_RETENTION`.
pub const RETENTION: &[(&str, T)] = &[("jobhistory_max_rows", T::Int), ("jobhistory_max_rows_per_job", T::Int)];
