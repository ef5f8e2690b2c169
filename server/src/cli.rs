//! The command line: `sundial [serve] | forecast | describe | demo`.
//!
//! `forecast` and `describe` are a stable contract (acceptance checks and scripts call them):
//! output formats and exit statuses here change only deliberately.
use anyhow::Context;
use app::engine::{self, AgentSchedule, Schedule, tz};
use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status for invalid input (a bad schedule, a bad flag value).
const EXIT_INVALID: u8 = 2;

#[derive(Parser, Debug)]
#[command(name = "sundial", version, about = "When database jobs should have run, when they did, and what went wrong in between")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// `sundial` alone serves: the flags of `serve` work without the word.
    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the dashboard (the default). With nothing configured, serves the built-in demo.
    Serve(ServeArgs),
    /// Print the next occurrences of a schedule, as local wall-clock times.
    Forecast(ForecastArgs),
    /// Print a schedule's description in the words SSMS uses.
    Describe(DescribeArgs),
    /// Write the demo database (an msdb-shaped SQLite file).
    Demo(DemoArgs),
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "SUNDIAL_ADDR")]
    pub addr: Option<std::net::SocketAddr>,
    /// Where the built site (pkg/, favicon) lives.
    #[arg(long, env = "LEPTOS_SITE_ROOT")]
    pub site_root: Option<String>,
    /// Where to write the demo database.
    #[arg(long, env = "SUNDIAL_DEMO_DB")]
    pub demo_db: Option<PathBuf>,
    /// The demo's "now" (UTC, e.g. 2026-11-22T12:00:00Z); default: the current minute.
    #[arg(long, env = "SUNDIAL_DEMO_NOW", value_parser = parse_utc)]
    pub demo_now: Option<DateTime<Utc>>,
    /// The demo's random seed.
    #[arg(long, env = "SUNDIAL_DEMO_SEED", default_value_t = 42)]
    pub demo_seed: u64,
}

#[derive(Args, Debug)]
pub struct ScheduleArg {
    /// One msdb.dbo.sysschedules row as a JSON object; absent columns take msdb's defaults
    /// (active_start_date: the date of --after, as sp_add_schedule uses today).
    #[arg(long, value_name = "JSON")]
    pub agent: String,
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
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// The SQLite file to write (overwritten).
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
    "enabled", "freq_type", "freq_interval", "freq_subday_type", "freq_subday_interval",
    "freq_relative_interval", "freq_recurrence_factor", "active_start_date", "active_end_date",
    "active_start_time", "active_end_time",
];
const AGENT_IGNORED: &[&str] = &[
    "schedule_id", "schedule_uid", "originating_server_id", "name", "owner_sid", "date_created",
    "date_modified", "version_number",
];

/// Parse `--agent`. Errors name the field and the value, in one line.
pub fn parse_agent(json: &str, default_start: Option<NaiveDateTime>) -> Result<AgentSchedule, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("--agent: not valid JSON ({e})"))?;
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
            return Err(format!("--agent: unknown column '{key}' (sysschedules columns: {})", AGENT_COLUMNS.join(", ")));
        }
        let n = match v {
            serde_json::Value::Number(n) => n.as_i64().ok_or_else(|| format!("{key} = {n}: not a whole number"))?,
            serde_json::Value::Bool(b) => i64::from(*b),
            serde_json::Value::String(t) => t.trim().parse::<i64>().map_err(|_| format!("{key} = {t:?}: not a whole number"))?,
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
    let schedule = match parse_agent(&args.schedule.agent, Some(args.after)) {
        Ok(s) => Schedule::Agent(s),
        Err(e) => return invalid(e),
    };
    let after = tz::local_to_instant(args.after, args.tz);
    let f = engine::next_after(0, &schedule, args.tz, after, args.count);
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

fn describe_cmd(args: DescribeArgs) -> ExitCode {
    match parse_agent(&args.schedule.agent, None) {
        Ok(s) => {
            let errors: Vec<_> = engine::agent::validate(&s)
                .into_iter()
                .filter(|d| d.severity == engine::Severity::Error)
                .collect();
            println!("{}", engine::describe(&Schedule::Agent(s)));
            if let Some(e) = errors.first() {
                return invalid(e);
            }
            ExitCode::SUCCESS
        }
        Err(e) => invalid(e),
    }
}

fn current_minute() -> DateTime<Utc> {
    use chrono::{DurationRound, TimeDelta};
    Utc::now().duration_trunc(TimeDelta::minutes(1)).unwrap_or_else(|_| Utc::now())
}

async fn demo_cmd(args: DemoArgs) -> anyhow::Result<()> {
    let now = args.now.unwrap_or_else(current_minute);
    let summary = crate::demo::write_demo(&args.out, now, args.seed)
        .await
        .with_context(|| format!("writing the demo database {}", args.out.display()))?;
    println!("{summary}");
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

    let db = args.demo_db.unwrap_or_else(|| std::env::temp_dir().join("sundial-demo.sqlite"));
    let now = args.demo_now.unwrap_or_else(current_minute);
    let summary = crate::demo::write_demo(&db, now, args.demo_seed)
        .await
        .with_context(|| format!("writing the demo database {}", db.display()))?;
    tracing::info!(%summary, "no sources configured: serving the demo");
    let backend = crate::backend::DemoBackend::open(&db).await?;

    let state = crate::http::AppState { leptos_options: conf.leptos_options, backend: std::sync::Arc::new(backend) };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    tracing::info!("serving on http://{addr}");
    println!("Sundial is serving the demo on http://{addr}");
    axum::serve(listener, crate::http::router(state))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("serving HTTP")?;
    Ok(())
}

fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("SUNDIAL_LOG").unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
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
