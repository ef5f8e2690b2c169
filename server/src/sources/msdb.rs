//! SQL Server Agent's msdb over TDS (tiberius), read-only.
//!
//! Every query is in the `Q_*` constants (and [`history_sql`], [`steps_sql`], [`delta_sql`])
//! below, one comment each; each is a plain SELECT, bounded: history only for the window's
//! dates at a first read, then only past the `instance_id` mark ([`read_incremental`]), never
//! `SELECT *` of sysjobhistory. Values come back as lenient cells and go through the same mapping as the
//! SQLite demo ([`msdb_rows::assemble`]), so a corrupt row is a diagnostic on its job.
//! `uniqueidentifier` and `datetime` columns are converted to text in the T-SQL itself
//! (`CONVERT(nvarchar(36), job_id)`, style 126 for dates): the result does not depend on a
//! driver's date handling, and the TDS test server declares exactly those types.
//!
//! Least privilege: a user in msdb with `SQLAgentReaderRole` and `db_datareader`. The
//! connection asks for `ApplicationIntent=ReadOnly`; Sundial never sends anything but SELECTs
//! and one read-only procedure (`sp_get_sqlagent_properties`, where permitted).
use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;
use std::collections::HashMap;
use std::time::Duration;
use sundial_engine::fleet::InstanceInput;
use sundial_engine::{Diagnostic, Window};
use tiberius::{AuthMethod, Client, ColumnData, Config, EncryptionLevel, FromSql};
use tokio::net::TcpStream;
use tokio_util::compat::{Compat, TokioAsyncWriteCompatExt};

use super::msdb_rows::{
    self, Cell, HorizonRead, JobRead, JobStepRead, MsdbRows, OutcomeRead, RunningRead, ScheduleRead, SessionRead,
    StepHistoryRead, date_int, local_to_utc, parse_datetime, utc_to_local,
};
use super::{BoxFuture, Mark, ReadContext, ReportedNext, Source, SourceError, SourceRead};
use crate::config::InstanceConfig;
use std::sync::atomic::{AtomicU64, Ordering};

/// SQL Server Agent as a [`Source`]: a TDS connection per poll (nothing stays open on a
/// production server). A read with a held read that has a [`Mark`] ([`ReadContext::held`])
/// asks `sysjobhistory` only for what is new ([`read_incremental`]) and answers an
/// [`Extent::Delta`](super::Extent::Delta).
#[derive(Default)]
pub struct Msdb {
    /// `sysjobhistory` rows fetched by this source's reads, all told (for tests and figures).
    rows: AtomicU64,
}

impl Msdb {
    /// How many `sysjobhistory` rows (outcome and step rows) this source's reads have fetched.
    pub fn rows_read(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }
}

impl Source for Msdb {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let mut client = open(cx.config).await?;
            let since = cx.held.and_then(|h| h.mark.as_ref());
            let (read, rows) =
                read_incremental(&mut client, &cx.config.name, cx.config.time_zone, cx.window, cx.now, since).await?;
            self.rows.fetch_add(rows, Ordering::Relaxed);
            Ok(read)
        })
    }
}

/// The grant that reads everything here.
pub const GRANT: &str = "a user in msdb with SQLAgentReaderRole and db_datareader";

fn query_error(object: &'static str, e: tiberius::error::Error) -> SourceError {
    match e {
        // 229: SELECT permission denied; 208: invalid object (no access to msdb's views);
        // 916: the login cannot access msdb; 15247/2812: no EXECUTE on the procedure.
        tiberius::error::Error::Server(t) if matches!(t.code(), 229 | 208 | 916 | 15247 | 2812 | 297) => {
            SourceError::permission(object, GRANT)
        }
        tiberius::error::Error::Server(t) => SourceError::query(object, format!("error {}: {}", t.code(), t.message())),
        e => SourceError::tds(object, &e),
    }
}

/// Where and how to connect.
#[derive(Clone, Debug)]
pub struct Target {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    /// `Required` in production; `NotSupported` only for a test server without TLS.
    pub encryption: EncryptionLevel,
    pub trust_cert: bool,
}

/// A TDS client on msdb.
pub type MsdbClient = Client<Compat<TcpStream>>;

/// Connect to msdb with `ApplicationIntent=ReadOnly`, within `timeout`.
pub async fn connect(t: &Target, timeout: Duration) -> Result<MsdbClient, SourceError> {
    let mut config = Config::new();
    config.host(&t.host);
    config.port(t.port);
    config.database("msdb");
    config.application_name("Sundial");
    config.readonly(true);
    config.encryption(t.encryption);
    if t.trust_cert {
        config.trust_cert();
    }
    config.authentication(AuthMethod::sql_server(&t.user, &t.password));
    let go = async {
        let tcp = TcpStream::connect(config.get_addr()).await.map_err(|_| SourceError::Unreachable {
            server: "SQL Server",
            detail: "the server is unreachable".into(),
        })?;
        tcp.set_nodelay(true).ok();
        Client::connect(config, tcp.compat_write()).await.map_err(|e| match e {
            // 18456: login failed; 4060: cannot open the database.
            tiberius::error::Error::Server(t) => SourceError::Authentication {
                server: "SQL Server",
                detail: format!("error {}: {}", t.code(), t.message()),
            },
            _ => SourceError::Unreachable { server: "SQL Server", detail: "the login failed".into() },
        })
    };
    tokio::time::timeout(timeout, go).await.map_err(|_| SourceError::Timeout(timeout))?
}

// ---------------------------------------------------------------------------------------------
// The T-SQL, all of it.

/// The instance's zone (SQL Server 2019+ and Azure): a Windows zone name such as
/// "Eastern Standard Time", and the offset now.
pub const Q_TIME_ZONE: &str = "SELECT CONVERT(nvarchar(64), CURRENT_TIMEZONE_ID()) AS tz_id, DATEDIFF(minute, SYSUTCDATETIME(), SYSDATETIME()) AS offset_minutes";
/// Older servers: only the offset now.
pub const Q_OFFSET: &str = "SELECT DATEDIFF(minute, SYSUTCDATETIME(), SYSDATETIME()) AS offset_minutes";
/// Every job with its category and owner.
pub const Q_JOBS: &str = "SELECT CONVERT(nvarchar(36), j.job_id) AS job_id, j.name, j.enabled, c.name AS category, SUSER_SNAME(j.owner_sid) AS owner, CONVERT(nvarchar(23), j.date_modified, 121) AS modified FROM msdb.dbo.sysjobs AS j LEFT JOIN msdb.dbo.syscategories AS c ON c.category_id = j.category_id ORDER BY j.name";
/// Every job's schedules (a schedule may serve several jobs).
pub const Q_SCHEDULES: &str = "SELECT CONVERT(nvarchar(36), js.job_id) AS job_id, s.schedule_id, s.name, s.enabled, s.freq_type, s.freq_interval, s.freq_subday_type, s.freq_subday_interval, s.freq_relative_interval, s.freq_recurrence_factor, s.active_start_date, s.active_end_date, s.active_start_time, s.active_end_time FROM msdb.dbo.sysjobschedules AS js JOIN msdb.dbo.sysschedules AS s ON s.schedule_id = js.schedule_id ORDER BY js.job_id, s.schedule_id";
/// Per job: its oldest kept outcome row, and whether it keeps 100 or more (msdb's default
/// per-job cap): the history horizon.
pub const Q_HORIZON: &str = "SELECT CONVERT(nvarchar(36), j.job_id) AS job_id, o.instance_id AS oldest_id, o.run_date AS oldest_date, o.run_time AS oldest_time, CASE WHEN (SELECT COUNT(*) FROM msdb.dbo.sysjobhistory AS h WHERE h.job_id = j.job_id AND h.step_id = 0) >= 100 THEN 1 END AS at_cap FROM msdb.dbo.sysjobs AS j OUTER APPLY (SELECT TOP (1) h.instance_id, h.run_date, h.run_time FROM msdb.dbo.sysjobhistory AS h WHERE h.job_id = j.job_id AND h.step_id = 0 ORDER BY h.run_date, h.run_time) AS o";
/// Runs executing now, in the latest Agent session (with the last step that ended and when it
/// began), and the Agent's own next run.
pub const Q_ACTIVITY: &str = "SELECT CONVERT(nvarchar(36), a.job_id) AS job_id, CONVERT(nvarchar(23), a.start_execution_date, 126) AS start_execution_date, CONVERT(nvarchar(23), a.stop_execution_date, 126) AS stop_execution_date, a.run_requested_source, a.last_executed_step_id, CONVERT(nvarchar(23), a.last_executed_step_date, 126) AS last_executed_step_date, CONVERT(nvarchar(23), a.next_scheduled_run_date, 126) AS next_scheduled_run_date FROM msdb.dbo.sysjobactivity AS a WHERE a.session_id = (SELECT MAX(session_id) FROM msdb.dbo.syssessions)";
/// Agent starts (one row per start of the service; the last 1000).
pub const Q_SESSIONS: &str = "SELECT TOP (1000) CONVERT(nvarchar(23), agent_start_date, 126) AS agent_start_date FROM msdb.dbo.syssessions ORDER BY session_id DESC";
/// The history retention settings (needs more than the reader roles on some versions).
pub const Q_RETENTION: &str = "EXEC msdb.dbo.sp_get_sqlagent_properties";

/// Outcome rows (step_id 0) whose `run_date` lies within the window's local dates. The two
/// numbers are `yyyymmdd` integers Sundial computes; nothing from outside enters the text.
pub fn history_sql(first: i64, last: i64) -> String {
    format!(
        "SELECT h.instance_id, CONVERT(nvarchar(36), h.job_id) AS job_id, h.run_status, h.run_date, h.run_time, h.run_duration, h.retries_attempted, LEFT(h.message, 1024) AS message FROM msdb.dbo.sysjobhistory AS h WHERE h.step_id = 0 AND h.run_date BETWEEN {first} AND {last} ORDER BY h.instance_id"
    )
}

/// Step rows (step_id > 0) on the window's dates: each step attempt of each run, retries
/// included (the same dates as [`history_sql`], so every run read has its steps).
pub fn steps_sql(first: i64, last: i64) -> String {
    format!(
        "SELECT h.instance_id, CONVERT(nvarchar(36), h.job_id) AS job_id, h.step_id, h.step_name, h.run_status, h.run_date, h.run_time, h.run_duration, h.retries_attempted, h.sql_message_id, h.sql_severity, LEFT(h.message, 1024) AS message FROM msdb.dbo.sysjobhistory AS h WHERE h.step_id > 0 AND h.run_date BETWEEN {first} AND {last} ORDER BY h.instance_id"
    )
}

/// Both ends of `sysjobhistory` by its clustered key, `instance_id` (an identity): the highest
/// (where the next read starts), and the oldest row with its local date and time (whether
/// history was replaced: see [`went_back`]). Two seeks, never a scan.
pub const Q_ENDS: &str = "SELECT (SELECT MAX(instance_id) FROM msdb.dbo.sysjobhistory) AS high, o.instance_id AS low_id, o.run_date AS low_date, o.run_time AS low_time FROM (SELECT 1 AS one) AS x OUTER APPLY (SELECT TOP (1) h.instance_id, h.run_date, h.run_time FROM msdb.dbo.sysjobhistory AS h ORDER BY h.instance_id) AS o";

/// `sysjobhistory` rows are asked for this many at a time past the mark, and at most so many
/// step rows waiting for their run's outcome row are asked for again (both readers'.)
pub use msdb_rows::{MAX_OPEN, PAGE};

/// Every `sysjobhistory` row past `after` (outcome rows, step_id 0, and step rows alike), and
/// the rows `open` names again (step rows whose run had no outcome row yet), by the clustered
/// key (`instance_id`): an index seek, at most [`PAGE`] rows. The numbers are `instance_id`s
/// Sundial read; nothing from outside enters the text.
pub fn delta_sql(after: i64, open: &[i64]) -> String {
    let again = if open.is_empty() {
        String::new()
    } else {
        let ids: Vec<String> = open.iter().map(i64::to_string).collect();
        format!(" OR h.instance_id IN ({})", ids.join(", "))
    };
    format!(
        "SELECT TOP ({PAGE}) h.instance_id, CONVERT(nvarchar(36), h.job_id) AS job_id, h.step_id, h.step_name, h.run_status, h.run_date, h.run_time, h.run_duration, h.retries_attempted, h.sql_message_id, h.sql_severity, LEFT(h.message, 1024) AS message FROM msdb.dbo.sysjobhistory AS h WHERE h.instance_id > {after}{again} ORDER BY h.instance_id"
    )
}

/// Every job's steps: names, subsystems, what follows success and failure (the actions and
/// the steps they go to), and the job's start step.
pub const Q_JOB_STEPS: &str = "SELECT CONVERT(nvarchar(36), s.job_id) AS job_id, s.step_id, s.step_name, s.subsystem, s.on_success_action, s.on_success_step_id, s.on_fail_action, s.on_fail_step_id, j.start_step_id FROM msdb.dbo.sysjobsteps AS s JOIN msdb.dbo.sysjobs AS j ON j.job_id = s.job_id ORDER BY s.job_id, s.step_id";

// ---------------------------------------------------------------------------------------------

fn cell(data: &ColumnData<'static>) -> Cell {
    match data {
        ColumnData::U8(v) => v.map_or(Cell::Null, |v| Cell::Int(v.into())),
        ColumnData::I16(v) => v.map_or(Cell::Null, |v| Cell::Int(v.into())),
        ColumnData::I32(v) => v.map_or(Cell::Null, |v| Cell::Int(v.into())),
        ColumnData::I64(v) => v.map_or(Cell::Null, Cell::Int),
        ColumnData::F32(v) => v.map_or(Cell::Null, |v| Cell::Real(v.into())),
        ColumnData::F64(v) => v.map_or(Cell::Null, Cell::Real),
        ColumnData::Bit(v) => v.map_or(Cell::Null, |v| Cell::Int(v.into())),
        ColumnData::String(v) => v.as_ref().map_or(Cell::Null, |s| Cell::Text(s.to_string())),
        ColumnData::Guid(v) => v.map_or(Cell::Null, |g| Cell::Text(g.to_string().to_uppercase())),
        ColumnData::Binary(v) => v.as_ref().map_or(Cell::Null, |b| Cell::Blob(b.len())),
        other => match NaiveDateTime::from_sql(other) {
            Ok(Some(t)) => Cell::Text(t.format("%Y-%m-%dT%H:%M:%S%.3f").to_string()),
            _ => Cell::Null,
        },
    }
}

/// Run one query; each row as column name → cell.
async fn rows(
    client: &mut MsdbClient,
    object: &'static str,
    sql: &str,
) -> Result<Vec<HashMap<String, Cell>>, SourceError> {
    let stream = client.simple_query(sql).await.map_err(|e| query_error(object, e))?;
    let rows = stream.into_first_result().await.map_err(|e| query_error(object, e))?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let names: Vec<String> = r.columns().iter().map(|c| c.name().to_owned()).collect();
            names.into_iter().zip(r.into_iter().map(|d| cell(&d))).collect()
        })
        .collect())
}

fn take(r: &mut HashMap<String, Cell>, name: &str) -> Cell {
    r.remove(name).unwrap_or(Cell::Null)
}

/// The instance's zone: the override, else CURRENT_TIMEZONE_ID() mapped to IANA, else the
/// offset as a fixed zone (with a warning: daylight saving is then unknown).
async fn zone(client: &mut MsdbClient, over: Option<Tz>, notes: &mut Vec<Diagnostic>) -> Result<Tz, SourceError> {
    if let Some(tz) = over {
        return Ok(tz);
    }
    let offset = match rows(client, "CURRENT_TIMEZONE_ID()", Q_TIME_ZONE).await {
        Ok(mut r) => {
            let mut r = r.pop().unwrap_or_default();
            if let Some(id) = take(&mut r, "tz_id").text() {
                match id.parse::<windows_timezones::WindowsTimezone>().ok().and_then(|w| w.tzdb_id().parse::<Tz>().ok())
                {
                    Some(tz) => return Ok(tz),
                    None => notes.push(Diagnostic::warning(
                        "CURRENT_TIMEZONE_ID()",
                        &id,
                        "not a Windows zone Sundial can map; using the current offset",
                    )),
                }
            }
            take(&mut r, "offset_minutes").int().ok().flatten()
        }
        // Before SQL Server 2019 the function does not exist.
        Err(_) => rows(client, "the server's offset", Q_OFFSET)
            .await?
            .pop()
            .and_then(|mut r| take(&mut r, "offset_minutes").int().ok().flatten()),
    };
    let minutes = offset.unwrap_or(0);
    let fixed = if minutes % 60 == 0 && (-12 * 60..=14 * 60).contains(&minutes) {
        // Etc/GMT signs are inverted: UTC+2 is Etc/GMT-2.
        let h = -minutes / 60;
        let name = if h == 0 { "Etc/UTC".to_owned() } else { format!("Etc/GMT{h:+}") };
        name.parse::<Tz>().unwrap_or(chrono_tz::UTC)
    } else {
        chrono_tz::UTC
    };
    notes.push(Diagnostic::warning(
        "time_zone",
        format!("UTC{:+}min", minutes),
        format!("the server does not say its zone: forecasting in {fixed}, which knows no daylight saving; set time_zone for this instance in the configuration"),
    ));
    Ok(fixed)
}

/// Everything the engine needs about the instance over `window` (as
/// [`msdb_rows::assemble`] describes it), plus instance-level findings (the zone, the history
/// retention) and the Agent's own `next_scheduled_run_date` per job, which
/// [`super::finish`] checks against Sundial's forecast. Whole: [`read_incremental`] without a
/// mark.
pub async fn read_instance(
    client: &mut MsdbClient,
    name: &str,
    zone_override: Option<Tz>,
    window: Window,
    now: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    Ok(read_incremental(client, name, zone_override, window, now, None).await?.0)
}

/// [`read_instance`], asking `sysjobhistory` only for what `since` (the [`Mark`] of an earlier
/// read) does not hold: the rows past its `instance_id` high-water mark, outcome and step rows
/// alike, a page at a time, and the step rows it names as waiting for their run's outcome
/// row ([`delta_sql`]), by the clustered key; jobs, schedules, steps, horizons, sessions and
/// `sysjobactivity` (small) each time. The answer is an [`Extent::Delta`](super::Extent::Delta) that
/// [`super::read`] merges into the held read. Without `since`, or when `sysjobhistory`'s
/// `instance_id`s went back ([`went_back`]: restored, purged and reseeded), the window is
/// read whole (by `run_date`), merged into what Sundial holds when it went back, with a note.
/// With the read, how many `sysjobhistory` rows it fetched.
pub async fn read_incremental(
    client: &mut MsdbClient,
    name: &str,
    zone_override: Option<Tz>,
    window: Window,
    now: DateTime<Utc>,
    since: Option<&Mark>,
) -> Result<(SourceRead, u64), SourceError> {
    let mut notes = Vec::new();
    let tz = zone(client, zone_override, &mut notes).await?;
    let job_rows = read_jobs(client).await?;
    let schedule_rows = read_schedules(client).await?;
    let horizon_rows = read_horizons(client).await?;
    // The runs going now before the history: a run that ends in between is read with its
    // outcome row (and is then that run, not one going: `msdb_rows::assemble`), and a run the
    // activity no longer shows going but whose outcome row is not in the history read after
    // ended without one.
    let (running_rows, agent_next) = read_activity(client).await?;
    // Both ends before the rows: a row added meanwhile is read now or by the next read.
    let (high, low) = read_ends(client, tz).await?;
    let first = date_int(utc_to_local(window.start, tz).date());
    let last = date_int(utc_to_local(window.end, tz).date());
    // Read again after the history went back, the window's rows are added to what Sundial
    // holds (runs it read before still happened), not put in its place: a delta.
    let plan = msdb_rows::plan_history(since, low, high, now);
    let (step_rows, outcome_rows, read_to) = match plan.past {
        Some(mark) => {
            let (steps, outcomes, read_to) = read_past(client, mark).await?;
            (steps, outcomes, read_to.max(mark.high))
        }
        None => {
            // Steps before outcomes: a run that ends between the two reads still finds its
            // outcome row.
            let steps = read_steps(client, first, last).await?;
            let outcomes = read_outcomes(client, first, last).await?;
            // Rows past the ends read are read again by the next read (a run read again is
            // the same run: merged by its start).
            (steps, outcomes, high.unwrap_or(0))
        }
    };
    let fetched = (step_rows.len() + outcome_rows.len()) as u64;
    notes.extend(msdb_rows::restart_note(plan.restarted.as_ref()));
    let extent = plan.extent;
    let mark = msdb_rows::mark_after(&outcome_rows, &step_rows, first, read_to, low, plan.restarted);
    let job_steps = read_job_steps(client, &mut notes).await;
    let session_rows: Vec<SessionRead> = rows(client, "msdb.dbo.syssessions", Q_SESSIONS)
        .await?
        .into_iter()
        .map(|mut r| SessionRead { agent_start_date: take(&mut r, "agent_start_date") })
        .collect();
    notes.extend(retention(client).await);

    let msdb = MsdbRows {
        job_rows,
        schedule_rows,
        horizon_rows,
        outcome_rows,
        running_rows,
        session_rows,
        step_rows,
        job_steps,
    };
    let mut input: InstanceInput = msdb_rows::assemble(name, tz, window, &msdb);
    input.agent_starts.sort();
    let mut read = SourceRead { extent, mark: Some(mark), ..SourceRead::new(input, notes, now) };
    read.reported_next = agent_next
        .into_iter()
        .map(|(job_id, at)| ReportedNext {
            job_id,
            at: local_to_utc(at, tz),
            column: "next_scheduled_run_date",
            raw: at.format("%Y-%m-%d %H:%M:%S").to_string(),
        })
        .collect();
    Ok((read, fetched))
}

/// `sysjobhistory`'s highest `instance_id`, and its oldest row's with that row's start
/// (`None`: no history at all).
async fn read_ends(
    client: &mut MsdbClient,
    tz: Tz,
) -> Result<(Option<i64>, Option<(i64, DateTime<Utc>)>), SourceError> {
    let Some(mut r) = rows(client, "msdb.dbo.sysjobhistory", Q_ENDS).await?.pop() else { return Ok((None, None)) };
    let int = |c: Cell| c.int().ok().flatten();
    let high = int(take(&mut r, "high"));
    let date = int(take(&mut r, "low_date")).and_then(msdb_rows::parse_date_int);
    let time = int(take(&mut r, "low_time")).and_then(msdb_rows::parse_time_int);
    let low = int(take(&mut r, "low_id")).map(|id| {
        // A row whose date is unreadable is still that row: its key alone says.
        let at = date.zip(time).map_or(DateTime::<Utc>::MIN_UTC, |(d, t)| local_to_utc(d.and_time(t), tz));
        (id, at)
    });
    Ok((high, low))
}

/// The rows past `mark` ([`delta_sql`]), page after page, as step rows and outcome rows; with
/// the highest `instance_id` read (0 when none).
async fn read_past(
    client: &mut MsdbClient,
    mark: &Mark,
) -> Result<(Vec<StepHistoryRead>, Vec<OutcomeRead>, i64), SourceError> {
    let (mut steps, mut outcomes) = (Vec::new(), Vec::new());
    let (mut after, mut open, mut read_to) = (mark.high, mark.open.as_slice(), 0);
    loop {
        let page = rows(client, "msdb.dbo.sysjobhistory", &delta_sql(after, open)).await?;
        let full = page.len() as i64 == PAGE;
        for mut r in page {
            let instance_id = take(&mut r, "instance_id");
            if let Ok(Some(id)) = instance_id.int() {
                read_to = read_to.max(id);
                after = after.max(id);
            }
            let step_id = take(&mut r, "step_id");
            if step_id.int() == Ok(Some(0)) {
                outcomes.push(OutcomeRead {
                    instance_id,
                    job_id: take(&mut r, "job_id"),
                    run_status: take(&mut r, "run_status"),
                    run_date: take(&mut r, "run_date"),
                    run_time: take(&mut r, "run_time"),
                    run_duration: take(&mut r, "run_duration"),
                    message: take(&mut r, "message"),
                });
            } else {
                steps.push(step_read(instance_id, step_id, r));
            }
        }
        open = &[];
        if !full {
            break;
        }
    }
    Ok((steps, outcomes, read_to))
}

/// Why `sysjobhistory`'s `instance_id`s went back below a mark (shared with the SQLite reader).
pub use msdb_rows::went_back;

/// Every job, with its category and its owner's login name.
async fn read_jobs(client: &mut MsdbClient) -> Result<Vec<JobRead>, SourceError> {
    Ok(rows(client, "msdb.dbo.sysjobs", Q_JOBS)
        .await?
        .into_iter()
        .map(|mut r| JobRead {
            job_id: take(&mut r, "job_id"),
            name: take(&mut r, "name"),
            enabled: take(&mut r, "enabled"),
            category: take(&mut r, "category"),
            owner: take(&mut r, "owner"),
            modified: take(&mut r, "modified"),
        })
        .collect())
}

/// Every job's schedules.
async fn read_schedules(client: &mut MsdbClient) -> Result<Vec<ScheduleRead>, SourceError> {
    Ok(rows(client, "msdb.dbo.sysschedules", Q_SCHEDULES)
        .await?
        .into_iter()
        .map(|mut r| ScheduleRead {
            job_id: take(&mut r, "job_id"),
            schedule_id: take(&mut r, "schedule_id"),
            name: take(&mut r, "name"),
            enabled: take(&mut r, "enabled"),
            freq_type: take(&mut r, "freq_type"),
            freq_interval: take(&mut r, "freq_interval"),
            freq_subday_type: take(&mut r, "freq_subday_type"),
            freq_subday_interval: take(&mut r, "freq_subday_interval"),
            freq_relative_interval: take(&mut r, "freq_relative_interval"),
            freq_recurrence_factor: take(&mut r, "freq_recurrence_factor"),
            active_start_date: take(&mut r, "active_start_date"),
            active_end_date: take(&mut r, "active_end_date"),
            active_start_time: take(&mut r, "active_start_time"),
            active_end_time: take(&mut r, "active_end_time"),
        })
        .collect())
}

/// Per job, its oldest kept outcome row and whether it keeps the per-job cap.
async fn read_horizons(client: &mut MsdbClient) -> Result<Vec<HorizonRead>, SourceError> {
    Ok(rows(client, "msdb.dbo.sysjobhistory", Q_HORIZON)
        .await?
        .into_iter()
        .map(|mut r| HorizonRead {
            job_id: take(&mut r, "job_id"),
            oldest_id: take(&mut r, "oldest_id"),
            oldest_date: take(&mut r, "oldest_date"),
            oldest_time: take(&mut r, "oldest_time"),
            at_cap: take(&mut r, "at_cap"),
        })
        .collect())
}

/// The step rows on the local dates `first..=last` (`yyyymmdd`).
async fn read_steps(client: &mut MsdbClient, first: i64, last: i64) -> Result<Vec<StepHistoryRead>, SourceError> {
    Ok(rows(client, "msdb.dbo.sysjobhistory", &steps_sql(first, last))
        .await?
        .into_iter()
        .map(|mut r| {
            let (instance_id, step_id) = (take(&mut r, "instance_id"), take(&mut r, "step_id"));
            step_read(instance_id, step_id, r)
        })
        .collect())
}

/// A step row's remaining columns, after its `instance_id` and `step_id`.
fn step_read(instance_id: Cell, step_id: Cell, mut r: HashMap<String, Cell>) -> StepHistoryRead {
    StepHistoryRead {
        instance_id,
        job_id: take(&mut r, "job_id"),
        step_id,
        step_name: take(&mut r, "step_name"),
        run_status: take(&mut r, "run_status"),
        run_date: take(&mut r, "run_date"),
        run_time: take(&mut r, "run_time"),
        run_duration: take(&mut r, "run_duration"),
        retries_attempted: take(&mut r, "retries_attempted"),
        sql_message_id: take(&mut r, "sql_message_id"),
        sql_severity: take(&mut r, "sql_severity"),
        message: take(&mut r, "message"),
    }
}

/// Every job's steps; a login that cannot read sysjobsteps still reads the runs' steps (their
/// names are in the history), without subsystems, and is told so.
async fn read_job_steps(client: &mut MsdbClient, notes: &mut Vec<Diagnostic>) -> Vec<JobStepRead> {
    match rows(client, "msdb.dbo.sysjobsteps", Q_JOB_STEPS).await {
        Ok(rows) => rows
            .into_iter()
            .map(|mut r| JobStepRead {
                job_id: take(&mut r, "job_id"),
                step_id: take(&mut r, "step_id"),
                step_name: take(&mut r, "step_name"),
                subsystem: take(&mut r, "subsystem"),
                on_success_action: take(&mut r, "on_success_action"),
                on_success_step_id: take(&mut r, "on_success_step_id"),
                on_fail_action: take(&mut r, "on_fail_action"),
                on_fail_step_id: take(&mut r, "on_fail_step_id"),
                start_step_id: take(&mut r, "start_step_id"),
            })
            .collect(),
        Err(e) => {
            notes.push(Diagnostic::info(format!(
                "the job steps are not readable ({e}); steps are shown without their subsystem"
            )));
            Vec::new()
        }
    }
}

/// The outcome rows on the local dates `first..=last`.
async fn read_outcomes(client: &mut MsdbClient, first: i64, last: i64) -> Result<Vec<OutcomeRead>, SourceError> {
    Ok(rows(client, "msdb.dbo.sysjobhistory", &history_sql(first, last))
        .await?
        .into_iter()
        .map(|mut r| OutcomeRead {
            instance_id: take(&mut r, "instance_id"),
            job_id: take(&mut r, "job_id"),
            run_status: take(&mut r, "run_status"),
            run_date: take(&mut r, "run_date"),
            run_time: take(&mut r, "run_time"),
            run_duration: take(&mut r, "run_duration"),
            message: take(&mut r, "message"),
        })
        .collect())
}

/// The runs executing now in the latest Agent session, and the Agent's own next run per job.
async fn read_activity(
    client: &mut MsdbClient,
) -> Result<(Vec<RunningRead>, Vec<(String, NaiveDateTime)>), SourceError> {
    let mut activity = rows(client, "msdb.dbo.sysjobactivity", Q_ACTIVITY).await?;
    let mut agent_next: Vec<(String, NaiveDateTime)> = Vec::new();
    let running = activity
        .iter_mut()
        .filter_map(|r| {
            let job_id = take(r, "job_id");
            if let (Some(id), Some(next)) =
                (job_id.text(), take(r, "next_scheduled_run_date").text().and_then(|t| parse_datetime(&t)))
            {
                agent_next.push((id, next));
            }
            let started = take(r, "start_execution_date");
            let stopped = take(r, "stop_execution_date");
            (started != Cell::Null && stopped == Cell::Null).then(|| RunningRead {
                job_id,
                start_execution_date: started,
                run_requested_source: take(r, "run_requested_source"),
                last_executed_step_id: take(r, "last_executed_step_id"),
                last_executed_step_date: take(r, "last_executed_step_date"),
            })
        })
        .collect();
    Ok((running, agent_next))
}

/// What the history retention settings say, or that this login cannot read them.
async fn retention(client: &mut MsdbClient) -> Option<Diagnostic> {
    match rows(client, "sp_get_sqlagent_properties", Q_RETENTION).await {
        Ok(mut r) => {
            let mut r = r.pop()?;
            let max = take(&mut r, "jobhistory_max_rows").int().ok().flatten()?;
            let per_job = take(&mut r, "jobhistory_max_rows_per_job").int().ok().flatten()?;
            Some(Diagnostic::info(format!(
                "msdb keeps at most {max} job history rows, {per_job} per job: older runs are unknown, not missed"
            )))
        }
        Err(_) => Some(Diagnostic::info(
            "the history retention settings are not readable by this login (sp_get_sqlagent_properties); \
             Sundial infers each job's history horizon from its oldest row instead",
        )),
    }
}

/// Where and how to reach SQL Server.
pub fn target_of(c: &InstanceConfig) -> Result<Target, SourceError> {
    Ok(Target {
        host: c.host.clone().unwrap_or_else(|| "localhost".into()),
        port: c.port.unwrap_or(1433),
        user: c.user.clone().unwrap_or_default(),
        password: super::secret(c)?.unwrap_or_default(),
        encryption: if c.encrypt {
            tiberius::EncryptionLevel::Required
        } else {
            tiberius::EncryptionLevel::NotSupported
        },
        trust_cert: c.trust_server_certificate,
    })
}

/// A TDS client on SQL Server, made per poll: nothing stays open on a production server.
pub async fn open(c: &InstanceConfig) -> Result<MsdbClient, SourceError> {
    connect(&target_of(c)?, c.timeout).await
}
