//! The simulator's state as data, and what it computes from it: plain functions over engine
//! types, run in the browser on every edit (and natively in tests).
//!
//! Nothing here touches the DOM or the network: [`preview`] turns a schedule, a zone and a
//! moment into the next runs, the descriptions and the diagnostics; [`impact`] replays the
//! instance's other jobs against the proposed schedule.
use crate::engine::edit::{self, Dialect, Row};
use crate::engine::replay::{self, EditedJob, Estimate, Impact, OtherJob};
use crate::engine::{self, Diagnostic, Dst, Schedule, ScheduleId, Severity, Window, Zone, ZoneRules};
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How many next runs the page shows unless the URL says.
pub const DEFAULT_COUNT: usize = 10;
/// The most next runs the page computes.
pub const MAX_COUNT: usize = 500;
/// The impact window's length unless the URL says, and its limits.
pub const DEFAULT_DAYS: u32 = 7;
pub const MAX_DAYS: u32 = 31;
/// What the engine's warning says of a schedule the chosen pg_cron version refuses
/// (`cron.schedule rejects this one`): the page makes it an error (no runs, no statement).
pub const REJECTS: &str = "rejects this one";
/// `after` as the URL and the `<time datetime>` attributes write it.
pub const LOCAL_FORMAT: &str = "%Y-%m-%dT%H:%M:%S";

/// Everything the page starts from: the URL's state, resolved by the server (the zone's rules,
/// the job's schedules and the instance's other jobs when a job is named).
///
/// Schedules travel as their rows' JSON (what the page edits anyway) and are read in the
/// browser by [`edit::parse_row_full`]: the WASM carries one reader of rows, not a second
/// (serde) reader of every dialect's schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimSetup {
    /// [`Dialect::key`].
    pub dialect: String,
    /// The row being edited, as JSON with its table's columns.
    pub row: String,
    /// Local wall-clock in `tz`, [`LOCAL_FORMAT`].
    pub after: String,
    pub count: usize,
    /// The rules of the zone the schedule is read in (an IANA name).
    pub rules: ZoneRules,
    /// pg_cron's version as `(major, minor)` (cron only; `None`: unknown, assume current).
    pub pg_cron: Option<(u32, u32)>,
    /// The impact window, in days from the instance's now.
    pub days: u32,
    /// The job the page was opened for ("Simulate a change" on a job page).
    pub job: Option<SimJob>,
    /// Problems with the URL itself (an unknown zone, a count out of range, …), shown once.
    pub notes: Vec<String>,
    /// "Now" for the warnings (an end date passed): the instance's now, epoch milliseconds.
    pub now_ms: i64,
}

/// An existing job: its schedule under edit, and the instance around it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimJob {
    pub instance: String,
    pub id: String,
    pub name: String,
    /// [`Dialect::key`] of the instance's schedules.
    pub dialect: String,
    /// The schedule under edit.
    pub schedule_id: ScheduleId,
    /// Its row as the source has it now, key columns included (they name the statement's
    /// target).
    pub original: String,
    /// Every schedule of the job: (id, name, row); the others keep running unchanged.
    pub schedules: Vec<(ScheduleId, String, String)>,
    /// The job's run time from its history: (p50, p95) seconds.
    pub estimate: Option<(i64, i64)>,
    /// The instance's other jobs with their schedules and estimates.
    pub others: Vec<SimOther>,
    /// The instance's now (the impact window starts here), epoch milliseconds.
    pub now_ms: i64,
}

/// Another job of the instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimOther {
    pub name: String,
    /// (schedule id, row).
    pub schedules: Vec<(ScheduleId, String)>,
    pub estimate: Option<(i64, i64)>,
}

/// Another job of the instance, read: name, schedules, run-time estimate.
pub type Neighbour = (String, Vec<(ScheduleId, Schedule)>, Option<Estimate>);

/// A [`SimJob`] with its rows read.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub name: String,
    pub schedule_id: ScheduleId,
    pub original: Option<Row>,
    pub schedules: Vec<(ScheduleId, Schedule)>,
    pub estimate: Option<Estimate>,
    pub others: Vec<Neighbour>,
    pub now_ms: i64,
    /// Rows that could not be read (the replay leaves them out).
    pub problems: Vec<String>,
}

fn estimate_of(e: Option<(i64, i64)>) -> Option<Estimate> {
    e.map(|(p50_secs, p95_secs)| Estimate { p50_secs, p95_secs })
}

/// Read the job's rows (once, when the page starts).
pub fn read_job(job: &SimJob) -> Instance {
    let dialect = Dialect::parse(&job.dialect).unwrap_or(Dialect::Agent);
    let mut problems = Vec::new();
    let mut read = |who: &str, row: &str| match edit::parse_row(dialect, row) {
        Ok(s) => Some(s),
        Err(d) => {
            problems.push(format!("{who}: {}", d.first().map(ToString::to_string).unwrap_or_default()));
            None
        }
    };
    let schedules = job
        .schedules
        .iter()
        .filter_map(|(id, name, row)| read(&format!("{} / {name}", job.name), row).map(|s| (*id, s)))
        .collect();
    let others = job
        .others
        .iter()
        .map(|o| {
            (
                o.name.clone(),
                o.schedules.iter().filter_map(|(id, row)| read(&o.name, row).map(|s| (*id, s))).collect(),
                estimate_of(o.estimate),
            )
        })
        .collect();
    Instance {
        name: job.name.clone(),
        schedule_id: job.schedule_id,
        original: edit::parse_row_full(dialect, &job.original).ok(),
        schedules,
        estimate: estimate_of(job.estimate),
        others,
        now_ms: job.now_ms,
        problems,
    }
}

/// One next run as the page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct NextRun {
    /// Local wall-clock, [`LOCAL_FORMAT`] (the `<time datetime>`).
    pub local: String,
    /// "Mon 2026-11-23 02:00:00"
    pub text: String,
    /// "2026-11-23 07:00:00 UTC"
    pub utc: String,
    pub dst: Option<Dst>,
    /// The wall-clock time the schedule asked for, when a DST gap moved the run.
    pub nominal: Option<String>,
}

/// What one edit shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Preview {
    pub runs: Vec<NextRun>,
    /// SSMS's wording (its schedule dialog's summary), or the dialect's own.
    pub description: String,
    /// msdb's `sp_get_schedule_description` text (SQL Agent only).
    pub msdb: Option<String>,
    /// Errors: the schedule cannot be forecast as written.
    pub errors: Vec<Diagnostic>,
    /// Warnings and notes: it can, but look.
    pub warnings: Vec<Diagnostic>,
}

impl Preview {
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Parse `after` ([`LOCAL_FORMAT`], seconds optional).
pub fn parse_local(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim();
    NaiveDateTime::parse_from_str(s, LOCAL_FORMAT).or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")).ok()
}

/// The zone a schedule is evaluated in: pg_cron before 1.5 always uses UTC (it has no
/// `cron.timezone`), every other dialect the chosen zone.
pub fn evaluation_zone(dialect: Dialect, zone: Zone, pg_cron: Option<(u32, u32)>) -> Zone {
    match (dialect, pg_cron) {
        (Dialect::Cron, Some(v)) if v < (1, 5) => Zone::UTC,
        _ => zone,
    }
}

/// The next `count` runs after `after` (local wall-clock in `zone`), the descriptions, and
/// every diagnostic: the engine's own (errors block the preview), then the editor's warnings.
pub fn preview(
    schedule: &Schedule,
    zone: Zone,
    after: NaiveDateTime,
    count: usize,
    pg_cron: Option<(u32, u32)>,
    now: DateTime<Utc>,
) -> Preview {
    let dialect = Dialect::of(schedule);
    let eval = evaluation_zone(dialect, zone, pg_cron);
    let after_at = engine::tz::local_to_instant(after, zone);
    let f = engine::next_after(0, schedule, eval, after_at, count.min(MAX_COUNT));
    let (mut errors, mut warnings): (Vec<_>, Vec<_>) =
        f.diagnostics.into_iter().partition(|d| d.severity == Severity::Error);
    // What the chosen pg_cron refuses is an error here: it would not run at all.
    let (rejected, editor): (Vec<_>, Vec<_>) = edit::warnings(schedule, now, engine::tz::to_local(now, zone), pg_cron)
        .into_iter()
        .partition(|w| w.message.contains(REJECTS));
    errors.extend(rejected.into_iter().map(|w| Diagnostic { severity: Severity::Error, ..w }));
    let runs = if errors.is_empty() {
        f.occurrences
            .iter()
            .map(|o| {
                let local = engine::tz::to_local(o.at, zone);
                NextRun {
                    local: local.format(LOCAL_FORMAT).to_string(),
                    text: local.format("%a %Y-%m-%d %H:%M:%S").to_string(),
                    utc: o.at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
                    dst: o.dst,
                    nominal: (o.dst == Some(Dst::Gap)).then(|| o.nominal.format("%H:%M:%S").to_string()),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    if eval != zone && zone.name() != "UTC" {
        warnings.push(Diagnostic::warning(
            "cron.timezone",
            zone.name(),
            "pg_cron before 1.5 ignores cron.timezone: these runs are computed in UTC and shown in the chosen zone",
        ));
    }
    for w in editor {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    if errors.is_empty() && runs.is_empty() && count > 0 && fires_on_a_clock(schedule) {
        warnings.push(edit::never_fires_warning());
    }
    let msdb = match schedule {
        Schedule::Agent(a) => Some(edit::msdb_description(a)),
        _ => None,
    };
    Preview { runs, description: engine::describe(schedule), msdb, errors, warnings }
}

/// False for schedules that fire on an event rather than a clock (Agent start, CPU idle).
fn fires_on_a_clock(schedule: &Schedule) -> bool {
    !matches!(schedule, Schedule::Agent(a) if a.freq_type == 64 || a.freq_type == 128)
}

/// Jobs that run every 30 minutes or more often are shown as bands, not counted as conflicts:
/// anything moved anywhere meets them.
pub const BAND_GAP_SECS: i64 = 30 * 60 + 1;

/// The impact window: `days` from the instance's now.
pub fn impact_window(now_ms: i64, days: u32) -> Window {
    let start = DateTime::<Utc>::from_timestamp_millis(now_ms).unwrap_or_default();
    Window::new(start, start + TimeDelta::days(i64::from(days.clamp(1, MAX_DAYS))))
}

/// Occurrence instants of several schedules over a window, merged and sorted.
fn instants(schedules: &[(ScheduleId, Schedule)], zone: Zone, window: Window) -> Vec<DateTime<Utc>> {
    let f = engine::forecast_job(schedules, zone, window);
    f.occurrences.into_iter().map(|o| o.at).collect()
}

/// Replay the instance over the impact window with the job's schedule `proposed` instead of
/// its current one. Jobs sharing the schedule (SQL Agent: a schedule id several jobs use) move
/// with it.
pub fn impact(job: &Instance, proposed: &Schedule, zone: Zone, days: u32) -> Impact {
    let window = impact_window(job.now_ms, days);
    let swap = |list: &[(ScheduleId, Schedule)]| -> Vec<(ScheduleId, Schedule)> {
        list.iter().map(|(id, s)| (*id, if *id == job.schedule_id { proposed.clone() } else { s.clone() })).collect()
    };
    let edited = EditedJob {
        name: job.name.clone(),
        current: instants(&job.schedules, zone, window),
        proposed: instants(&swap(&job.schedules), zone, window),
        estimate: job.estimate,
    };
    let shared = matches!(proposed, Schedule::Agent(_));
    let others: Vec<OtherJob> = job
        .others
        .iter()
        .map(|(name, schedules, estimate)| {
            let shares = shared && schedules.iter().any(|(id, _)| *id == job.schedule_id);
            OtherJob {
                name: name.clone(),
                occurrences: instants(schedules, zone, window),
                estimate: *estimate,
                shared_schedules: if shares { vec![job.schedule_id] } else { Vec::new() },
                proposed: shares.then(|| instants(&swap(schedules), zone, window)),
            }
        })
        .collect();
    replay::replay(&edited, &others, window, &replay::Settings { band_gap_secs: BAND_GAP_SECS })
}

/// How far after "runs after" the simulator looks for the edited schedule's risks, whatever the
/// count of runs asked.
pub const RISK_DAYS: i64 = 90;

/// The most runs of the edited schedule the risks look at: a schedule every few seconds is
/// looked at up to its 5,000th run (the page says until when), so that a keystroke stays fast.
pub const RISK_MAX_RUNS: usize = 5_000;

/// The edited job's id among the jobs [`risks`] hands the engine.
const EDITED: &str = "\u{1}edited";

/// The edited schedule's risks ahead ([`engine::risks::ahead`]) over [`RISK_DAYS`] from
/// `after`: its DST nights, its end, and, for a job, its own overlap at the job's durations and
/// its collisions with the neighbours whose runs are long enough to collide (the job's other
/// schedules keep running beside it). Only the risks of the edited job, or naming it; and the
/// end of the horizon when [`RISK_MAX_RUNS`] cut it short.
pub fn risks(
    schedule: &Schedule,
    zone: Zone,
    after: DateTime<Utc>,
    job: Option<&Instance>,
) -> (Vec<engine::risks::Risk>, Option<DateTime<Utc>>) {
    use engine::durations::DurationStats;
    use engine::fleet::JobSchedule;
    use engine::risks::{self, JobAhead};
    let mut horizon = Window::new(after, after + TimeDelta::days(RISK_DAYS));
    let cut = engine::next_after(0, schedule, zone, after, RISK_MAX_RUNS)
        .occurrences
        .get(RISK_MAX_RUNS - 1)
        .map(|o| o.at)
        .filter(|t| *t < horizon.end);
    if let Some(t) = cut {
        horizon.end = t;
    }
    let stats =
        |e: Option<Estimate>| e.map(|e| DurationStats { count: 1, p50: e.p50_secs, p95: e.p95_secs, max: e.p95_secs });
    let plain =
        |id: ScheduleId, s: &Schedule| JobSchedule { id, name: String::new(), enabled: true, schedule: s.clone() };
    let (name, mine, durations) = match job {
        Some(j) => {
            let mut mine: Vec<JobSchedule> =
                j.schedules.iter().map(|(id, s)| plain(*id, if *id == j.schedule_id { schedule } else { s })).collect();
            if !mine.iter().any(|s| s.id == j.schedule_id) {
                mine.push(plain(j.schedule_id, schedule));
            }
            (j.name.as_str(), mine, stats(j.estimate))
        }
        None => ("This schedule", vec![plain(0, schedule)], None),
    };
    let others: Vec<(&str, Vec<JobSchedule>, Option<DurationStats>)> = job
        .map(|j| {
            j.others
                .iter()
                .filter(|(_, _, e)| e.is_some_and(|e| e.p50_secs >= risks::COLLIDE_MIN_SECS))
                .map(|(n, list, e)| (n.as_str(), list.iter().map(|(id, s)| plain(*id, s)).collect(), stats(*e)))
                .collect()
        })
        .unwrap_or_default();
    let mut jobs = vec![JobAhead { id: EDITED, name, enabled: true, schedules: &mine, durations }];
    jobs.extend(others.iter().map(|(n, list, d)| JobAhead {
        id: n,
        name: n,
        enabled: true,
        schedules: list,
        durations: *d,
    }));
    let list = risks::ahead(&jobs, zone, horizon)
        .into_iter()
        .filter(|r| r.job_id == EDITED || r.with.as_ref().is_some_and(|w| w.job_id == EDITED))
        .collect();
    (list, cut)
}

/// The weekdays' names, Sunday first (msdb's and the simulator's order).
pub const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// The value as a text field shows it.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The columns of the row, in its order, with their texts (empty when the JSON is no object).
pub fn columns(json: &str) -> Vec<(String, String)> {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(row)) => row.into_iter().map(|(k, v)| (k, text_of(&v))).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::AgentSchedule;

    fn at(s: &str) -> NaiveDateTime {
        parse_local(s).unwrap()
    }

    /// The page's "now" in these tests (2023-11-14): only warnings read it.
    fn fixed_now() -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap()
    }

    #[test]
    fn next_runs_in_the_zone_with_utc_beside() {
        let ny = Zone::from_name("America/New_York").unwrap();
        let s = Schedule::Agent(AgentSchedule {
            freq_type: 4,
            freq_interval: 1,
            freq_subday_type: 1,
            active_start_time: 23000,
            ..Default::default()
        });
        let p = preview(&s, ny, at("2024-03-09T12:00:00"), 3, None, fixed_now());
        assert!(p.is_valid(), "{:?}", p.errors);
        let locals: Vec<_> = p.runs.iter().map(|r| r.local.as_str()).collect();
        // 2024-03-10 02:30 does not exist in New York: it runs at 03:00, the gap's end.
        assert_eq!(locals, ["2024-03-10T03:00:00", "2024-03-11T02:30:00", "2024-03-12T02:30:00"]);
        assert_eq!(p.runs[0].dst, Some(Dst::Gap));
        assert_eq!(p.runs[0].nominal.as_deref(), Some("02:30:00"));
        assert_eq!(p.runs[1].utc, "2024-03-11 06:30:00 UTC");
        assert!(p.msdb.is_some());
    }

    #[test]
    fn risks_of_a_job_tell_its_own_overlap_and_its_collisions_not_the_neighbours_own() {
        let daily = |t: i64| {
            Schedule::Agent(AgentSchedule {
                freq_type: 4,
                freq_interval: 1,
                freq_subday_type: 1,
                active_start_time: t,
                ..Default::default()
            })
        };
        let every_20_min = Schedule::Agent(AgentSchedule {
            freq_type: 4,
            freq_interval: 1,
            freq_subday_type: 4,
            freq_subday_interval: 20,
            active_end_time: 235959,
            ..Default::default()
        });
        let e = |p50, p95| Some(Estimate { p50_secs: p50, p95_secs: p95 });
        let job = Instance {
            name: "index rebuild".into(),
            schedule_id: 1,
            original: None,
            schedules: vec![(1, daily(10000))],
            estimate: e(2400, 3000),
            others: vec![
                ("backup".into(), vec![(2, daily(12000))], e(2400, 3000)),
                // Overlaps itself, and runs too briefly to collide: none of that is the edit's.
                ("log shipping".into(), vec![(3, every_20_min)], e(300, 1500)),
            ],
            now_ms: 0,
            problems: Vec::new(),
        };
        let after = at("2027-03-01T12:00:00").and_utc();
        let (got, cut) = risks(&daily(10000), Zone::UTC, after, Some(&job));
        assert_eq!(cut, None, "a daily schedule is looked at for the whole 90 days");
        let kinds: Vec<_> = got.iter().map(|r| (r.job.as_str(), r.kind.key(), r.at.len())).collect();
        assert_eq!(kinds, [("backup", "collides", 50)], "{got:#?}");
        assert_eq!(got[0].with.as_ref().map(|w| w.job.as_str()), Some("index rebuild"));
        // The edit moves the job to every 10 minutes: it overlaps itself at its p95 of 50 min,
        // and its runs are now background (a median gap under 15 min): no collision.
        let every_10_min = Schedule::Agent(AgentSchedule {
            freq_type: 4,
            freq_interval: 1,
            freq_subday_type: 4,
            freq_subday_interval: 10,
            active_end_time: 235959,
            ..Default::default()
        });
        let (got, cut) = risks(&every_10_min, Zone::UTC, after, Some(&job));
        assert_eq!(cut, Some(after + TimeDelta::minutes(10 * RISK_MAX_RUNS as i64)), "its 5,000th run after");
        let kinds: Vec<_> = got.iter().map(|r| (r.job.as_str(), r.kind.key())).collect();
        assert_eq!(kinds, [("index rebuild", "overlaps_itself")], "{got:#?}");
        assert!(got[0].explanation.contains("SQL Server Agent does not start a job still running"), "{got:#?}");
    }

    #[test]
    fn a_seconds_interval_under_ten_is_an_error_naming_the_field() {
        let s = Schedule::Agent(AgentSchedule {
            freq_type: 4,
            freq_interval: 1,
            freq_subday_type: 2,
            freq_subday_interval: 5,
            ..Default::default()
        });
        let p = preview(&s, Zone::UTC, at("2024-01-01T00:00:00"), 10, None, fixed_now());
        assert!(p.runs.is_empty());
        assert!(p.errors.iter().any(|d| d.field.as_deref() == Some("freq_subday_interval")), "{:?}", p.errors);
    }

    #[test]
    fn pg_cron_before_1_5_reads_in_utc() {
        let tokyo = Zone::from_name("Asia/Tokyo").unwrap();
        let s = Schedule::Cron(engine::cron::CronSchedule::new("0 3 * * *"));
        let p = preview(&s, tokyo, at("2024-01-01T00:00:00"), 1, Some((1, 4)), fixed_now());
        assert_eq!(p.runs[0].local, "2024-01-01T12:00:00", "03:00 UTC is noon in Tokyo");
        assert!(p.warnings.iter().any(|w| w.field.as_deref() == Some("cron.timezone")), "{:?}", p.warnings);
        let p = preview(&s, tokyo, at("2024-01-01T00:00:00"), 1, Some((1, 6)), fixed_now());
        assert_eq!(p.runs[0].local, "2024-01-01T03:00:00", "1.5+: cron.timezone");
    }
}
