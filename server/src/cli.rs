//! The command line: `sundial [serve] | forecast | describe | dry-run | demo | check-config`.
//!
//! The home-grown schedulers' flags are named by what they read (`--mysql-job-table`,
//! `--service-broker`, `--primentra`); the first spellings, after the seeds describing them
//! (`--seed002`, `--seed003`, `--seed004`), stay accepted as visible aliases.
//!
//! `forecast` and `describe` are a stable contract (acceptance checks and scripts call them):
//! output formats and exit statuses here change only deliberately.
use anyhow::Context;
use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use sundial_engine::{self as engine, AgentSchedule, Schedule, tz};

/// Exit status for invalid input (a bad schedule, a bad flag value).
const EXIT_INVALID: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "sundial",
    version,
    about = "When database jobs should have run, when they did, and what went wrong in between"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// `sundial` alone serves: the flags of `serve` work without the word.
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// What `forecast --help` and `describe --help` say of the flags' first names.
const OLD_FLAGS: &str = "--seed002, --seed003 and --seed004, the first names of --mysql-job-table, --service-broker \
                         and --primentra, are still accepted.";

/// The `kind`s a fleet configuration takes, for `--help`: the configuration's own list
/// (`SourceKind::ALL`, with each older spelling), never one typed again here.
fn kinds_help() -> String {
    use crate::config::SourceKind;
    let names: Vec<&str> = SourceKind::ALL.iter().map(|k| k.name()).collect();
    let aliased: Vec<SourceKind> = SourceKind::ALL.into_iter().filter(|k| k.alias().is_some()).collect();
    let aliases: Vec<&str> = aliased.iter().filter_map(|k| k.alias()).collect();
    let of: Vec<&str> = aliased.iter().map(|k| k.name()).collect();
    format!(
        "Instance kinds: {}. {}, the first names of {}, are still accepted.",
        names.join(", "),
        words(&aliases),
        words(&of)
    )
}

/// `a, b and c`.
fn words(list: &[&str]) -> String {
    match list {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the dashboard (the default). With nothing configured, serves the built-in demo.
    Serve(ServeArgs),
    /// Print the next occurrences of a schedule, as local wall-clock times.
    #[command(after_help = OLD_FLAGS)]
    Forecast(ForecastArgs),
    /// Print a schedule's description in the words SSMS uses.
    #[command(after_help = OLD_FLAGS)]
    Describe(DescribeArgs),
    /// What Primentra's test button answers for a triggered (or scheduled) configuration:
    /// would the dispatcher fire now, and why.
    #[command(after_help = "--seed004, the first name of --primentra, is still accepted.")]
    DryRun(DryRunArgs),
    /// Write the demo fleet: SQLPROD01's msdb-shaped SQLite file, the other instances' files
    /// beside it, and a fleet file that serves them.
    Demo(DemoArgs),
    /// Read a fleet configuration, say what is in it and what is wrong (file, line, field).
    #[command(after_help = kinds_help())]
    CheckConfig(CheckConfigArgs),
    /// Read a password on standard input and print its argon2id hash, for a `[[user]]` of the
    /// users file (`password_hash = "…"`).
    HashPassword,
    /// Make an API token: print it once, and the `[[token]]` entry (its SHA-256) for the users
    /// file. Clients send it as `Authorization: Bearer <token>`.
    NewToken(NewTokenArgs),
}

#[derive(Args, Debug)]
pub struct NewTokenArgs {
    /// What logs and pages call the token's holder (e.g. `prometheus`).
    pub name: String,
    /// viewer (read) or admin (may also acknowledge and silence problems).
    #[arg(long, default_value = "viewer", value_parser = ["viewer", "admin"])]
    pub role: String,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The fleet configuration (TOML); without it Sundial serves its built-in demo.
    #[arg(long, env = "SUNDIAL_CONFIG")]
    pub config: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, env = "SUNDIAL_ADDR")]
    pub addr: Option<std::net::SocketAddr>,
    /// Where the built site (pkg/, favicon) lives.
    #[arg(long, env = "LEPTOS_SITE_ROOT")]
    pub site_root: Option<String>,
    /// Where to write the demo: SQLPROD01's file (the other instances' files beside it), or a
    /// directory; default: `sundial-demo-<port>/` in the temporary directory (one per port: two
    /// `serve`s on one machine never write each other's files or store).
    #[arg(long, env = "SUNDIAL_DEMO_DB")]
    pub demo_db: Option<PathBuf>,
    /// A fixed "now" (UTC, e.g. 2026-11-22T12:00:00Z): the demo is simulated for it, and a
    /// configured fleet is read and judged as of it (postmortems, reproducible pages);
    /// default: the clock (the demo: the current minute).
    #[arg(long, visible_alias = "demo-now", env = "SUNDIAL_NOW", value_parser = parse_utc)]
    pub now: Option<DateTime<Utc>>,
    /// Accounts and API tokens (a users file, see `hash-password` and `new-token`): every page
    /// and API call then needs sign-in. Needed to listen on anything but loopback, unless the
    /// fleet file's `[auth]` says how users sign in.
    #[arg(long, env = "SUNDIAL_USERS")]
    pub users: Option<PathBuf>,
    /// The demo's random seed.
    #[arg(long, env = "SUNDIAL_DEMO_SEED", default_value_t = 42)]
    pub demo_seed: u64,
}

/// Exactly one schedule, in one of the dialects.
#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
pub struct ScheduleArg {
    /// One msdb.dbo.sysschedules row as a JSON object; absent columns take msdb's defaults
    /// (active_start_date: the date of --after, as sp_add_schedule uses today).
    #[arg(long, value_name = "JSON")]
    pub agent: Option<String>,
    /// A pg_cron schedule ('30 2 * * 0', '@daily', '5 seconds'), evaluated in --tz
    /// (cron.timezone).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub cron: Option<String>,
    /// One pgagent.pga_schedule row as a JSON object (jscstart, jscend, the arrays jscminutes,
    /// jschours, jscweekdays, jscmonthdays, jscmonths as JSON arrays of booleans or as
    /// PostgreSQL's `{t,f,…}`), with "exceptions": [{"jexdate": …, "jextime": …}]; evaluated in
    /// --tz (the agent's session TimeZone). Without jscstart, it is --after (the insert's time).
    /// The first time printed is what pgagent.pga_next_schedule answers when called at --after;
    /// each next one, what it answers at the time before (the agent's chain when runs end within
    /// their minute).
    #[arg(long, value_name = "JSON")]
    pub pgagent: Option<String>,
    /// One information_schema.EVENTS row as a JSON object (EVENT_TYPE, INTERVAL_VALUE, …);
    /// times print in the event's TIME_ZONE (SYSTEM: --tz).
    #[arg(long, value_name = "JSON")]
    pub mysql_event: Option<String>,
    /// One row of a MySQL stored-procedure scheduler's `job` table (job_schedule_start,
    /// job_schedule_interval, …) as a JSON object.
    #[arg(long, value_name = "JSON", visible_alias = "seed002")]
    pub mysql_job_table: Option<String>,
    /// One Service Broker scheduler's ScheduledJobs row with its JobSchedules columns, as a
    /// JSON object.
    #[arg(long, value_name = "JSON", visible_alias = "seed003")]
    pub service_broker: Option<String>,
    /// One Primentra SchedulerConfigurations row as a JSON object (an interval schedule with no
    /// `last_run` or `now` counts from --after).
    #[arg(long, value_name = "JSON", visible_alias = "seed004")]
    pub primentra: Option<String>,
}

#[derive(Args, Debug)]
pub struct ForecastArgs {
    #[command(flatten)]
    pub schedule: ScheduleArg,
    /// Occurrences strictly after this local wall-clock time (YYYY-MM-DDTHH:MM:SS).
    #[arg(long, value_parser = parse_local)]
    pub after: NaiveDateTime,
    /// How many occurrences.
    #[arg(long, default_value_t = 10)]
    pub count: usize,
    /// The instance's IANA time zone.
    #[arg(long, default_value = "UTC", value_parser = parse_tz)]
    pub tz: Tz,
    /// Print a JSON array instead of one time per line.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct DescribeArgs {
    #[command(flatten)]
    pub schedule: ScheduleArg,
    /// The zone a --cron expression is evaluated in (named in its description).
    #[arg(long, default_value = "UTC", value_parser = parse_tz)]
    pub tz: Tz,
}

#[derive(Args, Debug)]
pub struct DryRunArgs {
    /// One Primentra SchedulerConfigurations row as a JSON object.
    #[arg(long, value_name = "JSON", visible_alias = "seed004")]
    pub primentra: String,
    /// The queue: {"pending_rows": 1200, "oldest_row_age_minutes": 45, "last_trigger_check": "…"}.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub state: String,
    /// The moment of the check (UTC, like SYSUTCDATETIME()).
    #[arg(long, value_parser = parse_utc)]
    pub now: DateTime<Utc>,
}

#[derive(Args, Debug)]
pub struct CheckConfigArgs {
    /// The fleet configuration (TOML).
    #[arg(long, env = "SUNDIAL_CONFIG")]
    pub config: PathBuf,
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// SQLPROD01's SQLite file (overwritten), the others written beside it; or a directory,
    /// to write `sundial-demo.sqlite` and the others in it.
    #[arg(long, default_value = "sundial-demo.sqlite")]
    pub out: PathBuf,
    /// The demo's "now" (UTC); default: the current minute.
    #[arg(long, value_parser = parse_utc)]
    pub now: Option<DateTime<Utc>>,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

fn parse_local(s: &str) -> Result<NaiveDateTime, String> {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M"))
        .map_err(|_| format!("'{s}' is not a local time like 2008-03-03T10:00:00"))
}

fn parse_utc(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .or_else(|_| parse_local(s).map(|n| n.and_utc()))
        .map_err(|_| format!("'{s}' is not a UTC time like 2026-11-22T12:00:00Z"))
}

fn parse_tz(s: &str) -> Result<Tz, String> {
    s.parse::<Tz>().map_err(|_| format!("'{s}' is not an IANA time zone (e.g. Europe/London)"))
}

/// The sysschedules columns `--agent` understands, and the other columns of the table that
/// are accepted and ignored (so a row pasted from SSMS works).
const AGENT_COLUMNS: &[&str] = &[
    "enabled",
    "freq_type",
    "freq_interval",
    "freq_subday_type",
    "freq_subday_interval",
    "freq_relative_interval",
    "freq_recurrence_factor",
    "active_start_date",
    "active_end_date",
    "active_start_time",
    "active_end_time",
];
const AGENT_IGNORED: &[&str] = &[
    "schedule_id",
    "schedule_uid",
    "originating_server_id",
    "name",
    "owner_sid",
    "date_created",
    "date_modified",
    "version_number",
];

/// Parse `--agent`. Errors name the field and the value, in one line.
pub fn parse_agent(json: &str, default_start: Option<NaiveDateTime>) -> Result<AgentSchedule, String> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("--agent: not valid JSON ({e})"))?;
    let obj = value.as_object().ok_or("--agent: expected a JSON object of sysschedules columns")?;
    let mut s = AgentSchedule::default();
    if let Some(d) = default_start {
        s.active_start_date = i64::from(d.format("%Y%m%d").to_string().parse::<i32>().unwrap_or(19900101));
    }
    for (key, v) in obj {
        if AGENT_IGNORED.contains(&key.as_str()) {
            continue;
        }
        if !AGENT_COLUMNS.contains(&key.as_str()) {
            return Err(format!(
                "--agent: unknown column '{key}' (sysschedules columns: {})",
                AGENT_COLUMNS.join(", ")
            ));
        }
        let n = match v {
            serde_json::Value::Number(n) => n.as_i64().ok_or_else(|| format!("{key} = {n}: not a whole number"))?,
            serde_json::Value::Bool(b) => i64::from(*b),
            serde_json::Value::String(t) => {
                t.trim().parse::<i64>().map_err(|_| format!("{key} = {t:?}: not a whole number"))?
            }
            other => return Err(format!("{key} = {other}: not a whole number")),
        };
        let slot = match key.as_str() {
            "enabled" => &mut s.enabled,
            "freq_type" => &mut s.freq_type,
            "freq_interval" => &mut s.freq_interval,
            "freq_subday_type" => &mut s.freq_subday_type,
            "freq_subday_interval" => &mut s.freq_subday_interval,
            "freq_relative_interval" => &mut s.freq_relative_interval,
            "freq_recurrence_factor" => &mut s.freq_recurrence_factor,
            "active_start_date" => &mut s.active_start_date,
            "active_end_date" => &mut s.active_end_date,
            "active_start_time" => &mut s.active_start_time,
            "active_end_time" => &mut s.active_end_time,
            _ => unreachable!("checked against AGENT_COLUMNS"),
        };
        *slot = n;
    }
    Ok(s)
}

/// The pga_schedule columns `--pgagent` understands (`jscdesc` is accepted and ignored), and
/// its list of pga_exception rows.
const PGAGENT_COLUMNS: &[&str] = &[
    "jscid",
    "jscjobid",
    "jscname",
    "jscdesc",
    "jscenabled",
    "jscstart",
    "jscend",
    "jscminutes",
    "jschours",
    "jscweekdays",
    "jscmonthdays",
    "jscmonths",
    "exceptions",
];
const PGAGENT_EXCEPTION_COLUMNS: &[&str] = &["jexid", "jexscid", "jexdate", "jextime"];

/// Parse `--pgagent`: a pga_schedule row whose arrays may be JSON arrays, with its exceptions.
/// Errors name the column (and the exception), in one line. Without `jscstart`, `default_start`
/// (the local --after, as the column's default is the insert's time).
pub fn parse_pgagent(
    json: &str,
    default_start: Option<NaiveDateTime>,
) -> Result<engine::pgagent::PgAgentSchedule, String> {
    const FLAG: &str = "--pgagent";
    let mut value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("{FLAG}: not valid JSON ({e})"))?;
    let obj = value.as_object_mut().ok_or_else(|| format!("{FLAG}: expected a JSON object of pga_schedule columns"))?;
    for (key, v) in obj.iter() {
        if !PGAGENT_COLUMNS.contains(&key.as_str()) {
            return Err(format!(
                "{FLAG}: unknown column '{key}' (pga_schedule columns: {})",
                PGAGENT_COLUMNS.join(", ")
            ));
        }
        let array = matches!(key.as_str(), "jscminutes" | "jschours" | "jscweekdays" | "jscmonthdays" | "jscmonths");
        match (key.as_str(), v) {
            ("exceptions", serde_json::Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let row = item.as_object().ok_or_else(|| {
                        format!("{FLAG}: exceptions[{i}] = {item}: expected an object with jexdate and jextime")
                    })?;
                    for (k, x) in row {
                        if !PGAGENT_EXCEPTION_COLUMNS.contains(&k.as_str()) {
                            return Err(format!(
                                "{FLAG}: exceptions[{i}]: unknown column '{k}' (pga_exception columns: {})",
                                PGAGENT_EXCEPTION_COLUMNS.join(", ")
                            ));
                        }
                        if x.is_array() || x.is_object() {
                            return Err(format!("exceptions[{i}].{k} = {x}: expected a string or null"));
                        }
                    }
                }
            }
            ("exceptions", other) => return Err(format!("exceptions = {other}: expected an array of objects")),
            (_, serde_json::Value::Object(_)) => return Err(format!("{key} = {v}: expected a value, not an object")),
            (_, serde_json::Value::Array(_)) if !array => {
                return Err(format!("{key} = {v}: expected a string, number, boolean or null"));
            }
            _ => {}
        }
    }
    obj.remove("jscdesc");
    if let Some(items) = obj.get_mut("exceptions").and_then(|e| e.as_array_mut()) {
        for item in items {
            if let Some(row) = item.as_object_mut() {
                row.remove("jexscid");
            }
        }
    }
    let mut s: engine::pgagent::PgAgentSchedule = serde_json::from_value(value).map_err(|e| format!("{FLAG}: {e}"))?;
    if s.jscstart.as_deref().is_none_or(|t| t.trim().is_empty()) {
        s.jscstart = default_start.map(|a| a.format("%Y-%m-%d %H:%M:%S").to_string());
    }
    Ok(s)
}

/// Parse a dialect's JSON row: an object whose values are strings, numbers, booleans or null.
/// Errors name the flag, or the column and its value, in one line.
pub fn parse_row<T: serde::de::DeserializeOwned>(flag: &str, json: &str) -> Result<T, String> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("{flag}: not valid JSON ({e})"))?;
    let obj = value.as_object().ok_or_else(|| format!("{flag}: expected a JSON object of columns"))?;
    for (key, v) in obj {
        if v.is_array() || v.is_object() {
            return Err(format!("{key} = {v}: expected a string, number, boolean or null"));
        }
    }
    serde_json::from_value(value).map_err(|e| format!("{flag}: {e}"))
}

/// The schedule the flags name, or why not (one line).
pub fn schedule_from(args: &ScheduleArg, after: Option<NaiveDateTime>) -> Result<Schedule, String> {
    use engine::cron::CronSchedule;
    if let Some(j) = &args.agent {
        return parse_agent(j, after).map(Schedule::Agent);
    }
    if let Some(e) = &args.cron {
        return Ok(Schedule::Cron(CronSchedule::new(e.clone())));
    }
    if let Some(j) = &args.mysql_event {
        return parse_row("--mysql-event", j).map(Schedule::MysqlEvent);
    }
    if let Some(j) = &args.pgagent {
        return parse_pgagent(j, after).map(Schedule::PgAgent);
    }
    if let Some(j) = &args.mysql_job_table {
        return parse_row("--mysql-job-table", j).map(Schedule::JobTable);
    }
    if let Some(j) = &args.service_broker {
        return parse_row("--service-broker", j).map(Schedule::ServiceBroker);
    }
    if let Some(j) = &args.primentra {
        let mut c: engine::primentra::SchedulerConfiguration = parse_row("--primentra", j)?;
        if c.last_run.is_none() && c.now.is_none() {
            c.now = after.map(|a| a.format("%Y-%m-%d %H:%M:%S").to_string());
        }
        return Ok(Schedule::Primentra(c));
    }
    Err("give one of --agent, --cron, --pgagent, --mysql-event, --mysql-job-table, --service-broker, --primentra"
        .into())
}

fn invalid(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("sundial: {message}");
    ExitCode::from(EXIT_INVALID)
}

/// Render forecast output: one local time per line, or a JSON array of the same strings.
pub fn render_times(times: &[NaiveDateTime], json: bool) -> String {
    let strings: Vec<String> = times.iter().map(|t| t.format("%Y-%m-%dT%H:%M:%S").to_string()).collect();
    if json {
        let mut s = serde_json::to_string(&strings).expect("strings serialize");
        s.push('\n');
        s
    } else {
        strings.iter().map(|s| format!("{s}\n")).collect()
    }
}

fn forecast_cmd(args: ForecastArgs) -> ExitCode {
    let schedule = match schedule_from(&args.schedule, Some(args.after)) {
        Ok(s) => s,
        Err(e) => return invalid(e),
    };
    let after = tz::local_to_instant(args.after, args.tz.into());
    if let Schedule::PgAgent(s) = &schedule {
        return pgagent_forecast(s, args.tz, after, args.count, args.json);
    }
    let f = engine::next_after(0, &schedule, args.tz.into(), after, args.count);
    if let Some(e) = f.diagnostics.iter().find(|d| d.severity == engine::Severity::Error) {
        return invalid(e);
    }
    for d in &f.diagnostics {
        eprintln!("sundial: note: {d}");
    }
    let times: Vec<NaiveDateTime> = f.occurrences.iter().map(|o| o.local).collect();
    print!("{}", render_times(&times, args.json));
    ExitCode::SUCCESS
}

/// `forecast --pgagent`: what `pgagent.pga_next_schedule` answers when called at `after`, then
/// at each time it answered (the trigger's chain when each run ends within its minute), up to
/// `count` times. A NULL answer (past jscend) ends the list; the function's error ends it with
/// a note saying so (the agent schedules the job no more).
fn pgagent_forecast(
    s: &engine::pgagent::PgAgentSchedule,
    tz: Tz,
    after: DateTime<Utc>,
    count: usize,
    json: bool,
) -> ExitCode {
    use engine::pgagent::{NextRun, pga_next_schedule, validate};
    let diags = validate(s, tz.into());
    if let Some(e) = diags.iter().find(|d| d.severity == engine::Severity::Error) {
        return invalid(e);
    }
    for d in &diags {
        eprintln!("sundial: note: {d}");
    }
    let mut times = Vec::new();
    // Disabled (`jscenabled` false, said in a note): the trigger never reads it.
    let enabled = !diags.iter().any(|d| d.field.as_deref() == Some("jscenabled"));
    let mut now = after;
    while enabled && times.len() < count {
        match pga_next_schedule(s, tz.into(), now).0 {
            NextRun::At(t) if t > now => {
                times.push(tz::to_local(t, tz.into()));
                now = t;
            }
            NextRun::At(_) | NextRun::Null => break,
            NextRun::Fails(e) => {
                eprintln!(
                    "sundial: note: pgagent.pga_next_schedule fails when called at {} ({e}): the agent schedules the job no more",
                    tz::to_local(now, tz.into()).format("%Y-%m-%dT%H:%M:%S")
                );
                break;
            }
            NextRun::Unknown => {
                eprintln!("sundial: note: the next run lies past what Sundial models (years 1000 to 9999)");
                break;
            }
        }
    }
    print!("{}", render_times(&times, json));
    ExitCode::SUCCESS
}

fn describe_cmd(args: DescribeArgs) -> ExitCode {
    if args.schedule.agent.is_none() {
        return describe_dialect(args);
    }
    match parse_agent(args.schedule.agent.as_deref().unwrap_or_default(), None) {
        Ok(s) => {
            let errors: Vec<_> =
                engine::agent::validate(&s).into_iter().filter(|d| d.severity == engine::Severity::Error).collect();
            println!("{}", engine::describe(&Schedule::Agent(s)));
            if let Some(e) = errors.first() {
                return invalid(e);
            }
            ExitCode::SUCCESS
        }
        Err(e) => invalid(e),
    }
}

/// `describe` for the dialects other than the Agent: the description, then exit 2 with the
/// first Error (one line) when the schedule is invalid.
fn describe_dialect(args: DescribeArgs) -> ExitCode {
    use engine::{cron, job_table, mysql_event, primentra, service_broker};
    let schedule = match schedule_from(&args.schedule, None) {
        Ok(s) => s,
        Err(e) => return invalid(e),
    };
    let (text, diags) = match &schedule {
        Schedule::Cron(s) => (cron::describe_in(s, args.tz.into()), cron::validate(s)),
        Schedule::MysqlEvent(e) => (mysql_event::describe(e), mysql_event::validate(e, args.tz.into())),
        Schedule::JobTable(j) => (job_table::describe(j), job_table::validate(j)),
        Schedule::ServiceBroker(j) => (service_broker::describe(j), service_broker::validate(j)),
        Schedule::Primentra(c) => (primentra::describe(c), primentra::validate(c)),
        Schedule::PgAgent(p) => (engine::pgagent::describe(p), engine::pgagent::validate(p, args.tz.into())),
        other => (engine::describe(other), Vec::new()),
    };
    println!("{text}");
    match diags.iter().find(|d| d.severity == engine::Severity::Error) {
        Some(e) => invalid(e),
        None => ExitCode::SUCCESS,
    }
}

/// `dry-run`: `would_fire: true|false` and `reason: …`.
fn dry_run_cmd(args: DryRunArgs) -> ExitCode {
    use engine::primentra::{QueueState, SchedulerConfiguration, dry_run};
    let cfg: SchedulerConfiguration = match parse_row("--primentra", &args.primentra) {
        Ok(c) => c,
        Err(e) => return invalid(e),
    };
    let state: QueueState = match parse_row("--state", &args.state) {
        Ok(q) => q,
        Err(e) => return invalid(e),
    };
    match dry_run(&cfg, &state, args.now.naive_utc()) {
        Ok(r) => {
            println!("would_fire: {}", r.would_fire);
            println!("reason: {}", r.reason);
            ExitCode::SUCCESS
        }
        Err(d) => invalid(d),
    }
}

/// Validate the file (exit 2 naming file, line and field), list the instances, check that
/// every secret the file names is there, then read each instance once as serving would and
/// print what Sundial sees there, or why it cannot (unreachable, a missing grant named).
/// Exits 1 when a secret is missing or an instance cannot be read.
/// `hash-password`: the first line of standard input, hashed.
fn hash_password_cmd() -> ExitCode {
    let mut line = String::new();
    if std::io::stdin().read_line(&mut line).is_err() {
        eprintln!("sundial: cannot read the password from standard input");
        return ExitCode::from(EXIT_INVALID);
    }
    let password = line.trim_end_matches(['\n', '\r']);
    if password.is_empty() {
        eprintln!(
            "sundial: no password on standard input (e.g. `read -rs P; printf '%s' \"$P\" | sundial hash-password`)"
        );
        return ExitCode::from(EXIT_INVALID);
    }
    match crate::auth::hash_password(password) {
        Ok(hash) => {
            println!("{hash}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sundial: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `new-token NAME`: the token, once, and its entry for the users file.
fn new_token_cmd(args: NewTokenArgs) -> ExitCode {
    match crate::auth::new_token() {
        Ok((token, digest)) => {
            println!("# The token (shown this once; Sundial keeps only its SHA-256):\n# {token}");
            println!("[[token]]\nname = {:?}\nrole = {:?}\nsha256 = \"{digest}\"", args.name, args.role);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sundial: {e}");
            ExitCode::FAILURE
        }
    }
}

fn check_config_cmd(args: CheckConfigArgs) -> ExitCode {
    let config = match crate::config::load(&args.config) {
        Ok(c) => c,
        Err(e) => return invalid(e),
    };
    print!("{}", crate::config::summary(&config));
    if let Some(auth) = &config.auth {
        match crate::auth::Auth::load(auth) {
            Ok(a) => println!("sign-in: {}", a.summary()),
            Err(e) => {
                eprintln!("sundial: {e}");
                return ExitCode::from(EXIT_INVALID);
            }
        }
    }
    let mut missing = 0;
    for i in &config.instances {
        if let Err(e) = crate::config::resolve_secret(i) {
            eprintln!("sundial: {e}");
            missing += 1;
        }
    }
    println!("{} instance(s); {} missing secret(s)", config.instances.len(), missing);
    if missing > 0 {
        return ExitCode::FAILURE;
    }
    let rt = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sundial: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = 0;
    for (name, result) in rt.block_on(crate::fleet::probe(&config)) {
        match result {
            Ok(seen) => println!("{name}: ok: {seen}"),
            Err(e) => {
                failed += 1;
                println!("{name}: FAILED: {e}");
            }
        }
    }
    println!("{} of {} instance(s) readable", config.instances.len() - failed, config.instances.len());
    if failed > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn current_minute() -> DateTime<Utc> {
    use chrono::{DurationRound, TimeDelta};
    Utc::now().duration_trunc(TimeDelta::minutes(1)).unwrap_or_else(|_| Utc::now())
}

/// The demo's directory when none is given: one per port under `tmp`, so that two `serve`s on
/// one machine (they cannot share a port) never overwrite each other's files and store.
pub fn default_demo_dir(tmp: &std::path::Path, addr: std::net::SocketAddr) -> PathBuf {
    tmp.join(format!("sundial-demo-{}", addr.port()))
}

/// Where the demo's first file goes: `out` itself, or `out/sundial-demo.sqlite` when `out` is
/// a directory (the other files go beside it).
fn demo_path(out: &std::path::Path) -> PathBuf {
    if out.is_dir() { out.join("sundial-demo.sqlite") } else { out.to_path_buf() }
}

async fn demo_cmd(args: DemoArgs) -> anyhow::Result<()> {
    let now = args.now.unwrap_or_else(current_minute);
    let path = demo_path(&args.out);
    let summary = crate::demo::write_demo(&path, now, args.seed)
        .await
        .with_context(|| format!("writing the demo database {}", path.display()))?;
    println!("{summary}");
    println!(
        "serve it with: sundial serve --config {} --now {}",
        summary.fleet_file.display(),
        now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    Ok(())
}

async fn serve_cmd(args: ServeArgs) -> anyhow::Result<()> {
    let mut conf = leptos::config::get_configuration(None).context("reading the leptos site configuration")?;
    let options = &mut conf.leptos_options;
    if options.output_name.is_empty() {
        options.output_name = "sundial".into();
    }
    if let Some(root) = args.site_root {
        options.site_root = root.into();
    }
    if let Some(addr) = args.addr {
        options.site_addr = addr;
    }
    let addr = options.site_addr;
    if args.config.is_none() {
        // Refuse before writing the demo.
        sign_in(None, args.users.clone(), addr, None)?;
    }

    if let Some(path) = &args.config {
        let config = crate::config::load(path)?;
        let backend = crate::fleet::FleetBackend::start_at(&config, args.now).await?;
        tracing::info!(instances = config.instances.len(), config = %path.display(), "serving the configured fleet");
        let public_url = config.public_url.clone().unwrap_or_else(|| format!("http://{addr}"));
        let retry = crate::alerts::send::Retry::default();
        if let Some(alerter) = crate::alerts::Alerter::start(backend.clone(), &config, &public_url, retry).await? {
            alerter.spawn(args.now);
        }
        // Replicas share their sessions through the store.
        let auth = sign_in(config.auth.clone(), args.users.clone(), addr, backend.store())?;
        let state = crate::http::AppState::new(conf.leptos_options, backend).with_auth(auth);
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("listening on {addr}"))?;
        println!("Sundial is serving {} instance(s) on http://{addr}", config.instances.len());
        let app = crate::http::router_at(state, config.public_url.clone());
        crate::http::serve::serve(listener, app, config.http, ctrl_c()).await;
        return Ok(());
    }

    // The demo's files in a directory of their own (SUNDIAL_DEMO_DB: SQLPROD01's file, the
    // others beside it).
    let db = match args.demo_db {
        Some(db) => demo_path(&db),
        None => {
            let dir = default_demo_dir(&std::env::temp_dir(), addr);
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            dir.join("sundial-demo.sqlite")
        }
    };
    let now = args.now.unwrap_or_else(current_minute);
    let started = std::time::Instant::now();
    let summary = crate::demo::write_demo(&db, now, args.demo_seed)
        .await
        .with_context(|| format!("writing the demo database {}", db.display()))?;
    tracing::info!(%summary, ms = started.elapsed().as_millis() as u64, "no sources configured: serving the demo");
    let demo = crate::demo::fleet(&db).context("configuring the demo")?;
    // The files are a snapshot of `now`: every instance is read as of it.
    let backend = crate::fleet::FleetBackend::start_at(&demo, Some(now)).await?;

    let auth = sign_in(None, args.users.clone(), addr, None)?;
    let state = crate::http::AppState::new(conf.leptos_options, backend).with_auth(auth);
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("listening on {addr}"))?;
    tracing::info!("serving on http://{addr}");
    println!("Sundial is serving the demo on http://{addr}");
    let app = crate::http::router(state);
    crate::http::serve::serve(listener, app, crate::http::serve::Limits::default(), ctrl_c()).await;
    Ok(())
}

/// Ctrl-C (SIGINT): the server stops accepting and finishes the answers it is sending. If the
/// signal cannot be listened for, the server runs until killed.
async fn ctrl_c() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Sign-in as configured (`[auth]`, or `--users` for accounts from that file), or none on
/// loopback. Any other address without sign-in is refused, saying why.
fn sign_in(
    config: Option<crate::config::AuthConfig>,
    users: Option<PathBuf>,
    addr: std::net::SocketAddr,
    store: Option<&crate::store::Store>,
) -> anyhow::Result<Option<std::sync::Arc<crate::auth::Auth>>> {
    let config = match (config, users) {
        (Some(mut c), Some(users)) => {
            c.users_file = Some(users);
            Some(c)
        }
        (None, Some(users)) => Some(crate::config::AuthConfig::users(users)),
        (c, None) => c,
    };
    let Some(config) = config else {
        if addr.ip().is_loopback() {
            return Ok(None);
        }
        anyhow::bail!(
            "Sundial will not serve {addr} without sign-in: only a loopback address (127.0.0.1, ::1) may go \
             without it. Add an [auth] section to the fleet file (users_file, or proxy_header with \
             trusted_proxies), or pass --users FILE (accounts made with `sundial hash-password`), or listen \
             on 127.0.0.1 behind a proxy that signs users in."
        );
    };
    let auth = crate::auth::Auth::load(&config)?.sessions_in(store);
    tracing::info!(auth = %auth.summary(), "sign-in required");
    Ok(Some(std::sync::Arc::new(auth)))
}

fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("SUNDIAL_LOG").unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    // Colours only on a terminal: a journal or a file gets plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    // Every value escaped and bounded: names from sources and requests forge no line.
    let _ = tracing::subscriber::set_global_default(crate::logging::subscriber(filter, ansi, std::io::stderr));
}

fn run_async<F: std::future::Future<Output = anyhow::Result<()>>>(f: F) -> ExitCode {
    let rt = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sundial: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(f) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sundial: {e:#}");
            ExitCode::FAILURE
        }
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve(cli.serve)) {
        Command::Forecast(a) => forecast_cmd(a),
        Command::Describe(a) => describe_cmd(a),
        Command::DryRun(a) => dry_run_cmd(a),
        Command::CheckConfig(a) => check_config_cmd(a),
        Command::HashPassword => hash_password_cmd(),
        Command::NewToken(a) => new_token_cmd(a),
        Command::Demo(a) => {
            init_tracing();
            run_async(demo_cmd(a))
        }
        Command::Serve(a) => {
            init_tracing();
            run_async(serve_cmd(a))
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_configs_help_lists_every_kind_the_configuration_takes() {
        let help = super::kinds_help();
        assert_eq!(
            help,
            "Instance kinds: mssql, pg_cron, pgagent, mysql_events, jobactivity, mysql_job_table, service_broker, \
             primentra, sqlite_demo. seed001, seed002, seed003 and seed004, the first names of jobactivity, \
             mysql_job_table, service_broker and primentra, are still accepted."
        );
    }

    use super::*;
    use clap::CommandFactory;

    #[test]
    fn two_demos_on_one_machine_write_apart() {
        let tmp = std::path::Path::new("/tmp");
        let (a, b) = (
            default_demo_dir(tmp, "127.0.0.1:3000".parse().unwrap()),
            default_demo_dir(tmp, "127.0.0.1:3001".parse().unwrap()),
        );
        assert_ne!(a, b, "each serve its own files and store");
        assert_eq!(a, tmp.join("sundial-demo-3000"));
    }

    fn schedule_of(args: &[&str]) -> Result<Schedule, String> {
        let mut argv = vec!["sundial", "forecast"];
        argv.extend_from_slice(args);
        argv.extend_from_slice(&["--after", "2026-11-22T09:01:00"]);
        match Cli::try_parse_from(argv).map_err(|e| e.to_string())?.command {
            Some(Command::Forecast(f)) => schedule_from(&f.schedule, Some(f.after)),
            other => panic!("not a forecast: {other:?}"),
        }
    }

    #[test]
    fn old_and_new_flags_name_the_same_schedule() {
        let job = r#"{"job_name":"stats","job_schedule_start":"2026-11-22 09:00:00","job_schedule_interval":300}"#;
        let broker = r#"{"ValidFrom":"2026-11-18 09:00:00","FrequencyType":2,"Frequency":2,"AbsoluteSubFrequency":"2,3","RunAtInSecondsFromMidnight":28800}"#;
        let primentra = r#"{"ProcessingMode":"scheduled","ScheduleType":"interval","IntervalMinutes":30}"#;
        for (old, new, json) in [
            ("--seed002", "--mysql-job-table", job),
            ("--seed003", "--service-broker", broker),
            ("--seed004", "--primentra", primentra),
        ] {
            let a = schedule_of(&[old, json]).unwrap_or_else(|e| panic!("{old}: {e}"));
            let b = schedule_of(&[new, json]).unwrap_or_else(|e| panic!("{new}: {e}"));
            assert_eq!(a, b, "{old} and {new}");
        }
        assert!(matches!(schedule_of(&["--mysql-job-table", job]), Ok(Schedule::JobTable(_))));
        // Still exactly one schedule, whichever spelling names it.
        assert!(schedule_of(&["--seed002", job, "--mysql-job-table", job]).is_err());
    }

    #[test]
    fn dry_run_takes_primentra_and_its_old_flag() {
        let c = r#"{"ProcessingMode":"triggered","TriggerRowThreshold":1000}"#;
        for flag in ["--primentra", "--seed004"] {
            let cli = Cli::try_parse_from(["sundial", "dry-run", flag, c, "--now", "2026-03-02T06:00:00Z"])
                .unwrap_or_else(|e| panic!("{flag}: {e}"));
            match cli.command {
                Some(Command::DryRun(d)) => assert_eq!(d.primentra, c),
                other => panic!("{flag}: {other:?}"),
            }
        }
    }

    #[test]
    fn messages_and_help_say_the_new_names() {
        let e = schedule_of(&["--seed002", "[1]"]).unwrap_err();
        assert!(e.starts_with("--mysql-job-table: "), "{e}");
        let e = schedule_from(
            &ScheduleArg {
                agent: None,
                cron: None,
                pgagent: None,
                mysql_event: None,
                mysql_job_table: None,
                service_broker: None,
                primentra: None,
            },
            None,
        )
        .unwrap_err();
        assert!(e.contains("--mysql-job-table, --service-broker, --primentra") && !e.contains("seed"), "{e}");
        let mut cmd = Cli::command();
        for sub in ["forecast", "describe"] {
            let help = cmd.find_subcommand_mut(sub).expect(sub).render_long_help().to_string();
            for (new, old) in
                [("--mysql-job-table", "seed002"), ("--service-broker", "seed003"), ("--primentra", "seed004")]
            {
                assert!(
                    help.contains(new) && help.contains(old),
                    "{sub} --help names {new} and its alias {old}:\n{help}"
                );
            }
        }
        let help = cmd.find_subcommand_mut("dry-run").expect("dry-run").render_long_help().to_string();
        assert!(help.contains("--primentra") && help.contains("seed004"), "{help}");
        let help = cmd.find_subcommand_mut("check-config").expect("check-config").render_long_help().to_string();
        for k in crate::config::SourceKind::ALL {
            assert!(help.contains(k.name()), "check-config --help names {k}:\n{help}");
            if let Some(a) = k.alias() {
                assert!(help.contains(a), "check-config --help names {a}:\n{help}");
            }
        }
    }
}
