//! The simulation: 60 days of the catalog's jobs on one Agent, pure and reproducible from `now`
//! and a seed. [`simulate`] reads as its steps: the rows that describe the jobs (identities,
//! schedules, steps), then per job the events the Agent sees (the engine's occurrences, the
//! story's forced failures and long runs, manual starts) and the runs it makes of them, then the
//! history numbered and trimmed as msdb keeps it, and the Agent's sessions, next runs and
//! activity.
use super::catalog::{JobSpec, Kind, SA, ScheduleSpec, catalog, categories, job_owner, login_sid, logins};
use super::{Demo, INSTANCE, LONG_RUN_JOB, MANUAL_JOB, RERUN_JOB, RETRY_JOB, Scenario, TRIMMED_JOB, scenario, tz};
use crate::sources::msdb_rows::{
    self, ActivityRow, DemoMeta, HistoryRow, JobRow, JobScheduleRow, ScheduleRow, SessionRow, StepRow, date_int,
    encode_duration, local_to_utc, time_int, utc_to_local,
};
use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use chrono_tz::Tz;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use sundial_engine::{self as engine, Schedule};

/// Who the manual runs were started by.
const DBA: &str = super::catalog::DBA_LOGIN;

/// What one occurrence or manual start turns into.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Plan {
    Normal,
    Fail,
    Retry,
    /// A run of this many seconds (long enough to make the Agent skip a slot).
    Long(i64),
}

/// Why a run started.
#[derive(Clone, Debug)]
enum Cause {
    Schedule { id: i64, name: &'static str },
    User,
}

impl Cause {
    fn invoked_by(&self) -> String {
        match self {
            Cause::Schedule { id, name } => format!("Schedule {id} ({name})"),
            Cause::User => format!("User {DBA}"),
        }
    }
}

struct Event {
    at: DateTime<Utc>,
    cause: Cause,
    plan: Option<Plan>,
}

/// One step attempt.
struct Exec {
    step_id: i64,
    name: &'static str,
    start: DateTime<Utc>,
    secs: i64,
    status: i64,
    retries: i64,
    message_id: i64,
    severity: i64,
    message: String,
}

impl Exec {
    fn end(&self) -> DateTime<Utc> {
        self.start + Duration::seconds(self.secs)
    }
}

/// One run, for `sysjobactivity`.
struct SimRun {
    job: usize,
    session: i64,
    requested: DateTime<Utc>,
    source: &'static str,
    start: DateTime<Utc>,
    last_step: Option<(i64, DateTime<Utc>)>,
    stop: Option<DateTime<Utc>>,
    /// Index into the pending rows of its outcome row.
    outcome_row: Option<usize>,
}

/// A history row before `instance_id`s are given (in the order the Agent writes them).
struct Pending {
    written: DateTime<Utc>,
    job: usize,
    run: usize,
    seq: usize,
    row: HistoryRow,
}

/// What the simulation is run against: `now`, the demo's zone and its [`Scenario`].
struct Ctx {
    now: DateTime<Utc>,
    tz: Tz,
    scenario: Scenario,
    /// When the one-off backfill job ran (16 days ago, 14:30 local).
    backfill_at: DateTime<Utc>,
}

impl Ctx {
    fn new(now: DateTime<Utc>) -> Self {
        let mut ctx = Ctx { now, tz: tz(), scenario: scenario(now), backfill_at: now };
        ctx.backfill_at = ctx.local_day(16, 143000);
        ctx
    }

    /// `t` on the instance's wall clock (msdb's times).
    fn local(&self, t: DateTime<Utc>) -> NaiveDateTime {
        utc_to_local(t, self.tz)
    }

    /// `hhmmss` local, `days_ago` days before `now`.
    fn local_day(&self, days_ago: i64, hhmmss: i64) -> DateTime<Utc> {
        let d = self.local(self.now - Duration::days(days_ago)).date();
        local_to_utc(d.and_time(msdb_rows::parse_time_int(hhmmss).expect("valid time")), self.tz)
    }

    /// When the one-off job and its schedule were created: 3 h 17 min before the job ran.
    fn backfill_created(&self) -> NaiveDateTime {
        self.local(self.backfill_at - Duration::hours(3) - Duration::minutes(17))
    }
}

/// The rows the Agent writes while the history runs: history rows (before numbering) and runs.
#[derive(Default)]
struct Record {
    pending: Vec<Pending>,
    runs: Vec<SimRun>,
}

pub(super) fn guid(rng: &mut SmallRng) -> String {
    // Version 4 (random) in the third group, variant 10xx in the fourth, as NEWID() makes them.
    let v: u128 = rng.random::<u128>();
    let v = (v & !(0xF_u128 << 76)) | (0x4_u128 << 76);
    let v = (v & !(0xC_u128 << 60)) | (0x8_u128 << 60);
    let h = format!("{v:032X}");
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

fn step_success(run_as: &str, subsystem: &str) -> String {
    match subsystem {
        "CmdExec" => format!("Executed as user: {run_as}. Process Exit Code 0.  The step succeeded."),
        "SSIS" => format!(
            "Executed as user: {run_as}. DTExec: The package execution returned DTSER_SUCCESS (0).  The step succeeded."
        ),
        _ => format!("Executed as user: {run_as}. The step succeeded."),
    }
}

/// Simulate the demo: pure, reproducible from `now` and `seed`.
pub fn simulate(now: DateTime<Utc>, seed: u64) -> Demo {
    let ctx = Ctx::new(now);
    let (schedule_specs, job_specs) = catalog();
    // Identities come from their own stream, so they do not move when the simulation changes.
    let mut ids = SmallRng::seed_from_u64(seed ^ 0x05EE_D1D5);
    let mut rng = SmallRng::seed_from_u64(seed);
    let jobs = job_rows(&ctx, &job_specs, &mut ids);
    let schedules = schedule_rows(&ctx, &schedule_specs, &mut ids);
    let steps = step_rows(&job_specs, &jobs);

    let forced = forced_events(now);
    let mut record = Record::default();
    for (j, spec) in job_specs.iter().enumerate() {
        let events = job_events(&ctx, spec, &schedule_specs, &schedules, &forced);
        let on_agent_start = spec.schedules.iter().any(|&s| schedules[s].schedule.freq_type == 64);
        let job = Job { index: j, spec, id: &jobs[j].job_id, on_agent_start };
        run_job(&ctx, &job, &events, &mut rng, &mut record);
    }

    let (order, instance_of) = instance_ids(&record.pending);
    let history = retained_history(&job_specs, &record, &order, &instance_of);
    let sessions = sessions(&ctx);
    let next_local = next_runs(&ctx, &schedules);
    let job_schedules = job_schedule_rows(&job_specs, &jobs, &schedules, &next_local);
    let activity = activity_rows(&ctx, &job_specs, &jobs, &record.runs, &next_local, &instance_of);

    Demo {
        meta: DemoMeta { name: INSTANCE.into(), tz: ctx.tz, now, seed },
        scenario: Some(ctx.scenario),
        categories: categories(),
        logins: logins(),
        jobs,
        steps,
        schedules,
        job_schedules,
        history,
        sessions,
        activity,
    }
}

/// Jobs: identities and creation dates (the one-off: the morning it ran; the disabled job was
/// last modified when it was disabled).
fn job_rows(ctx: &Ctx, job_specs: &[JobSpec], ids: &mut SmallRng) -> Vec<JobRow> {
    let mut jobs: Vec<JobRow> = Vec::new();
    for spec in job_specs {
        let job_id = guid(ids);
        let created = if spec.name.contains("one-off") {
            ctx.backfill_created()
        } else {
            ctx.local(
                ctx.now - Duration::days(ids.random_range(300..1500)) - Duration::seconds(ids.random_range(0..86400)),
            )
        };
        let modified = if spec.enabled {
            created + Duration::minutes(ids.random_range(1..600))
        } else {
            ctx.local(ctx.scenario.disabled_at)
        };
        jobs.push(JobRow {
            job_id,
            name: spec.name.into(),
            enabled: spec.enabled,
            description: spec.description.into(),
            category_id: spec.category,
            owner_sid: login_sid(job_owner(spec.category, spec.name)),
            notify_level_email: if spec.kind == Kind::Poller { 0 } else { 2 },
            date_created: created,
            date_modified: modified,
            version_number: if spec.enabled { 1 + ids.random_range(0..5) } else { 7 },
        });
    }
    jobs
}

/// Schedules: start dates at their creation (the one-off: its day).
fn schedule_rows(ctx: &Ctx, schedule_specs: &[ScheduleSpec], ids: &mut SmallRng) -> Vec<ScheduleRow> {
    schedule_specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let created = if spec.schedule.freq_type == 1 {
                ctx.backfill_created()
            } else {
                ctx.local(ctx.now - Duration::days(1500 + 3 * i as i64))
            };
            let mut schedule = spec.schedule.clone();
            schedule.active_start_date = if spec.schedule.freq_type == 1 {
                date_int(ctx.local(ctx.backfill_at).date())
            } else {
                date_int(created.date())
            };
            ScheduleRow {
                schedule_id: i as i64 + 1,
                schedule_uid: guid(ids),
                name: spec.name.into(),
                owner_sid: login_sid(SA),
                schedule,
                date_created: created,
            }
        })
        .collect()
}

/// Steps: each goes on to the next, the last reports success; any failure ends the job.
fn step_rows(job_specs: &[JobSpec], jobs: &[JobRow]) -> Vec<StepRow> {
    let mut steps = Vec::new();
    for (j, spec) in job_specs.iter().enumerate() {
        let n = spec.steps.len();
        for (k, s) in spec.steps.iter().enumerate() {
            steps.push(StepRow {
                job_id: jobs[j].job_id.clone(),
                step_id: k as i64 + 1,
                step_name: s.name.into(),
                subsystem: s.subsystem.into(),
                command: s.command.into(),
                database_name: s.database.map(Into::into),
                on_success_action: if k + 1 == n { 1 } else { 3 },
                on_success_step_id: 0,
                on_fail_action: 2,
                on_fail_step_id: 0,
                retry_attempts: s.retry_attempts,
                retry_interval: if s.retry_attempts > 0 { 1 } else { 0 },
            });
        }
    }
    steps
}

/// The forced events that make the story, by job name: (target instant, plan).
fn forced_events(now: DateTime<Utc>) -> HashMap<&'static str, Vec<(DateTime<Utc>, Plan)>> {
    HashMap::from([
        (RERUN_JOB, vec![(now - Duration::days(12), Plan::Fail)]),
        (
            LONG_RUN_JOB,
            vec![(now - Duration::days(4), Plan::Long(95 * 60)), (now - Duration::days(23), Plan::Long(80 * 60))],
        ),
        (RETRY_JOB, vec![(now - Duration::days(5), Plan::Retry)]),
        ("DatabaseBackup - USER_DATABASES - LOG", vec![(now - Duration::days(15), Plan::Fail)]),
        ("Report - Daily Sales Summary", vec![(now - Duration::days(3), Plan::Fail)]),
    ])
}

/// Everything that would start `spec` over the history, in time order: its schedules'
/// occurrences, with the story's forced plans pinned on some, and its manual starts.
fn job_events(
    ctx: &Ctx,
    spec: &JobSpec,
    schedule_specs: &[ScheduleSpec],
    schedules: &[ScheduleRow],
    forced: &HashMap<&str, Vec<(DateTime<Utc>, Plan)>>,
) -> Vec<Event> {
    let mut events = scheduled_events(ctx, spec, schedule_specs, schedules);
    events.sort_by_key(|e| e.at);
    let forced = forced.get(spec.name).map(Vec::as_slice).unwrap_or(&[]);
    force_plans(&ctx.scenario, spec, forced, &mut events);
    if spec.name == MANUAL_JOB {
        for (days_ago, hhmmss) in [(41, 101522), (27, 150509), (13, 94012), (3, 172033)] {
            events.push(Event { at: ctx.local_day(days_ago, hhmmss), cause: Cause::User, plan: Some(Plan::Normal) });
        }
    }
    events.sort_by_key(|e| e.at);
    events
}

/// Occurrences from the engine, one forecast per enabled schedule; a schedule that fires when
/// the Agent starts fires 4 seconds after each Agent start in the history.
fn scheduled_events(
    ctx: &Ctx,
    spec: &JobSpec,
    schedule_specs: &[ScheduleSpec],
    schedules: &[ScheduleRow],
) -> Vec<Event> {
    let window = ctx.scenario.history;
    let mut events: Vec<Event> = Vec::new();
    for &s in &spec.schedules {
        let row = &schedules[s];
        if row.schedule.enabled == 0 {
            continue;
        }
        let cause = || Cause::Schedule { id: row.schedule_id, name: schedule_specs[s].name };
        if row.schedule.freq_type == 64 {
            for start in [ctx.scenario.first_agent_start, ctx.scenario.agent_restart] {
                if window.contains(start) {
                    events.push(Event { at: start + Duration::seconds(4), cause: cause(), plan: None });
                }
            }
            continue;
        }
        let f = engine::forecast(row.schedule_id, &Schedule::Agent(row.schedule.clone()), ctx.tz.into(), window);
        events.extend(f.occurrences.iter().map(|o| Event { at: o.at, cause: cause(), plan: None }));
    }
    events
}

/// Pins each forced plan on the first event at or after its target that the Agent does start
/// (not inside the zombie span or the downtime); the failed nightly load is re-run by hand.
fn force_plans(scenario: &Scenario, spec: &JobSpec, forced: &[(DateTime<Utc>, Plan)], events: &mut Vec<Event>) {
    for &(target, plan) in forced {
        let i = events.partition_point(|e| e.at < target);
        // Not inside the zombie span or the Agent's downtime: the event must happen.
        let i = (i..events.len())
            .find(|&i| !scenario.zombie.contains(events[i].at) && !scenario.agent_down.contains(events[i].at));
        if let Some(i) = i {
            events[i].plan = Some(plan);
            if spec.name == RERUN_JOB && plan == Plan::Fail {
                // The DBA re-runs it by hand when they get in.
                let at = events[i].at + Duration::hours(6) + Duration::minutes(13) + Duration::seconds(41);
                events.push(Event { at, cause: Cause::User, plan: Some(Plan::Normal) });
            }
        }
    }
}

/// The job whose runs are simulated.
struct Job<'a> {
    /// Its index in the catalog (and in the job rows).
    index: usize,
    spec: &'a JobSpec,
    /// Its `job_id`.
    id: &'a str,
    /// It has a schedule that fires when the Agent starts.
    on_agent_start: bool,
}

/// One run as it went: its step attempts, its `run_status`, when it started and ended.
struct Ran {
    execs: Vec<Exec>,
    status: i64,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
}

/// The runs the Agent makes of one job's events, and the history rows they write.
fn run_job(ctx: &Ctx, job: &Job, events: &[Event], rng: &mut SmallRng, record: &mut Record) {
    let spec = job.spec;
    let disabled_at = (!spec.enabled).then_some(ctx.scenario.disabled_at);
    let mut busy_until = DateTime::<Utc>::MIN_UTC;
    for e in events {
        if !agent_starts(ctx, e.at, disabled_at) {
            continue;
        }
        if e.at < busy_until {
            continue; // still running: the Agent skips, it does not queue
        }
        let plan = e.plan.unwrap_or_else(|| random_plan(spec, rng));
        let total = match plan {
            Plan::Long(s) => s,
            _ => spec.kind.seconds(rng),
        };
        let start = e.at;
        let (mut execs, status) = execute(spec, start, total, plan, rng);
        let status = cancel_at_agent_stop(&mut execs, status, start, ctx.scenario.agent_down.start);
        let end = execs.last().map_or(start, Exec::end);
        busy_until = end;
        record.run(ctx, job, &e.cause, &Ran { execs, status, start, end });
    }
}

/// Whether the Agent starts the job at `at`: inside the history and before `now`, not while it
/// is a zombie or down, not after the job was disabled.
fn agent_starts(ctx: &Ctx, at: DateTime<Utc>, disabled_at: Option<DateTime<Utc>>) -> bool {
    if at >= ctx.now || !ctx.scenario.history.contains(at) {
        return false;
    }
    if ctx.scenario.zombie.contains(at) || ctx.scenario.agent_down.contains(at) {
        return false; // nothing starts: the Agent is a zombie, or down
    }
    disabled_at.is_none_or(|d| at < d)
}

/// How an ordinary run goes: it fails, retries a step, or (hourly ETL) runs long, at the
/// job's rates; most are normal.
fn random_plan(spec: &JobSpec, rng: &mut SmallRng) -> Plan {
    let r: f64 = rng.random();
    let fail = spec.kind.failure_rate();
    let retry = spec.retry.as_ref().map_or(0.0, |r| r.rate);
    if r < fail {
        Plan::Fail
    } else if r < fail + retry {
        Plan::Retry
    } else if spec.kind == Kind::EtlHourly && r < fail + 0.005 {
        Plan::Long(rng.random_range(62 * 60..=100 * 60))
    } else {
        Plan::Normal
    }
}

/// The Agent stopped (at `stop`) while this run went on: the run is canceled at the stop
/// (`run_status` 3). Returns the run's status.
fn cancel_at_agent_stop(execs: &mut Vec<Exec>, status: i64, start: DateTime<Utc>, stop: DateTime<Utc>) -> i64 {
    if !(start < stop && execs.last().is_some_and(|x| x.end() > stop)) {
        return status;
    }
    execs.retain(|x| x.start < stop);
    if let Some(x) = execs.last_mut().filter(|x| x.end() > stop) {
        x.secs = (stop - x.start).num_seconds();
        x.status = 3;
        x.message_id = 0;
        x.severity = 0;
        x.message = "The step was cancelled (stopped) as the result of a stop job request.".into();
    }
    3
}

impl Record {
    /// Records one run: its `sysjobactivity` facts and the history rows it wrote by `now`.
    fn run(&mut self, ctx: &Ctx, job: &Job, cause: &Cause, ran: &Ran) {
        let mut sim = SimRun {
            job: job.index,
            session: if ran.start >= ctx.scenario.agent_restart { 2 } else { 1 },
            requested: ran.start,
            // sysjobactivity.run_requested_source: 1 a schedule, 3 the Agent's start, 4 a user.
            source: match cause {
                Cause::User => "4",
                Cause::Schedule { .. } if job.on_agent_start => "3",
                Cause::Schedule { .. } => "1",
            },
            start: ran.start,
            last_step: None,
            stop: None,
            outcome_row: None,
        };
        self.steps(ctx, job, ran, &mut sim);
        if ran.end <= ctx.now {
            self.outcome(ctx, job, cause, ran, &mut sim);
        }
        self.runs.push(sim);
    }

    /// One history row per step attempt that ended by `now` (msdb has no row for a step still
    /// running), written when the step ends.
    fn steps(&mut self, ctx: &Ctx, job: &Job, ran: &Ran, sim: &mut SimRun) {
        let run = self.runs.len();
        for (seq, x) in ran.execs.iter().enumerate() {
            if x.end() > ctx.now {
                break; // still running: msdb has no row for it yet
            }
            sim.last_step = Some((x.step_id, x.start));
            let l = ctx.local(x.start);
            self.pending.push(Pending {
                written: x.end(),
                job: job.index,
                run,
                seq,
                row: HistoryRow {
                    instance_id: 0,
                    job_id: job.id.to_owned(),
                    step_id: x.step_id,
                    step_name: x.name.into(),
                    sql_message_id: x.message_id,
                    sql_severity: x.severity,
                    message: x.message.clone(),
                    run_status: x.status,
                    run_date: date_int(l.date()),
                    run_time: time_int(l.time()),
                    run_duration: encode_duration(x.secs),
                    retries_attempted: x.retries,
                    server: INSTANCE.into(),
                },
            });
        }
    }

    /// The run's outcome row (step 0), written when the run ends: its verdict, who invoked it
    /// and its last step.
    fn outcome(&mut self, ctx: &Ctx, job: &Job, cause: &Cause, ran: &Ran, sim: &mut SimRun) {
        let last = ran.execs.last().expect("a run has a step");
        let verdict = match ran.status {
            1 => "The job succeeded.".to_owned(),
            3 => "The job was stopped prior to completion by Shutdown Sequence 0.".to_owned(),
            _ => "The job failed.".to_owned(),
        };
        let message = format!(
            "{verdict}  The Job was invoked by {}.  The last step to run was step {} ({}).",
            cause.invoked_by(),
            last.step_id,
            last.name
        );
        let l = ctx.local(ran.start);
        sim.stop = Some(ran.end);
        sim.outcome_row = Some(self.pending.len());
        self.pending.push(Pending {
            written: ran.end,
            job: job.index,
            run: self.runs.len(),
            seq: usize::MAX,
            row: HistoryRow {
                instance_id: 0,
                job_id: job.id.to_owned(),
                step_id: 0,
                step_name: "(Job outcome)".into(),
                sql_message_id: 0,
                sql_severity: 0,
                message,
                run_status: ran.status,
                run_date: date_int(l.date()),
                run_time: time_int(l.time()),
                run_duration: encode_duration((ran.end - ran.start).num_seconds()),
                retries_attempted: 0,
                server: INSTANCE.into(),
            },
        });
    }
}

/// `instance_id` in the order the Agent wrote the rows (a step row when the step ends, the
/// outcome row after the last step): the pending rows' indices in that order, and each
/// pending row's id.
fn instance_ids(pending: &[Pending]) -> (Vec<usize>, Vec<i64>) {
    let mut order: Vec<usize> = (0..pending.len()).collect();
    order.sort_by_key(|&i| (pending[i].written, pending[i].job, pending[i].run, pending[i].seq));
    let mut instance_of = vec![0_i64; pending.len()];
    for (n, &i) in order.iter().enumerate() {
        instance_of[i] = n as i64 + 1;
    }
    (order, instance_of)
}

/// The history rows msdb still holds, by `instance_id`: the busiest poller keeps only its
/// latest runs (the Agent's per-job retention).
fn retained_history(job_specs: &[JobSpec], record: &Record, order: &[usize], instance_of: &[i64]) -> Vec<HistoryRow> {
    let (pending, runs) = (&record.pending, &record.runs);
    let trimmed = job_specs.iter().position(|s| s.name == TRIMMED_JOB).expect("the trimmed poller is in the catalog");
    let mut kept_starts: Vec<DateTime<Utc>> =
        runs.iter().filter(|r| r.job == trimmed && r.outcome_row.is_some()).map(|r| r.start).collect();
    kept_starts.sort();
    let cutoff =
        kept_starts.len().checked_sub(msdb_rows::MAX_OUTCOME_ROWS_PER_JOB as usize).map(|skip| kept_starts[skip]);

    let mut history: Vec<HistoryRow> = Vec::with_capacity(pending.len());
    for &i in order {
        let p = &pending[i];
        if p.job == trimmed && cutoff.is_some_and(|c| runs[p.run].start < c) {
            continue;
        }
        let mut row = p.row.clone();
        row.instance_id = instance_of[i];
        history.push(row);
    }
    history
}

/// Agent sessions: the start before the history, and the restart inside it.
fn sessions(ctx: &Ctx) -> Vec<SessionRow> {
    let scenario = &ctx.scenario;
    vec![
        SessionRow { session_id: 1, agent_start_date: ctx.local(scenario.first_agent_start) },
        SessionRow { session_id: 2, agent_start_date: ctx.local(scenario.agent_restart) },
    ]
}

/// The Agent's own idea of each schedule's next run (local), `None` for a disabled schedule.
fn next_runs(ctx: &Ctx, schedules: &[ScheduleRow]) -> Vec<Option<NaiveDateTime>> {
    schedules
        .iter()
        .map(|s| {
            if s.schedule.enabled == 0 {
                return None;
            }
            let f = engine::next_after(s.schedule_id, &Schedule::Agent(s.schedule.clone()), ctx.tz.into(), ctx.now, 1);
            f.occurrences.first().map(|o| o.local)
        })
        .collect()
}

/// `sysjobschedules`: each job's schedules with their next run (none for a disabled job).
fn job_schedule_rows(
    job_specs: &[JobSpec],
    jobs: &[JobRow],
    schedules: &[ScheduleRow],
    next_local: &[Option<NaiveDateTime>],
) -> Vec<JobScheduleRow> {
    let mut job_schedules = Vec::new();
    for (j, spec) in job_specs.iter().enumerate() {
        for &s in &spec.schedules {
            let next = next_local[s].filter(|_| spec.enabled);
            job_schedules.push(JobScheduleRow {
                job_id: jobs[j].job_id.clone(),
                schedule_id: schedules[s].schedule_id,
                next_run_date: next.map_or(0, |t| date_int(t.date())),
                next_run_time: next.map_or(0, |t| time_int(t.time())),
            });
        }
    }
    job_schedules
}

/// `sysjobactivity`: per session and job, the latest run requested in it (and, in the current
/// session, the job's next scheduled run).
fn activity_rows(
    ctx: &Ctx,
    job_specs: &[JobSpec],
    jobs: &[JobRow],
    runs: &[SimRun],
    next_local: &[Option<NaiveDateTime>],
    instance_of: &[i64],
) -> Vec<ActivityRow> {
    let local = |t: DateTime<Utc>| ctx.local(t);
    let mut activity = Vec::new();
    for session in [1_i64, 2] {
        for (j, spec) in job_specs.iter().enumerate() {
            let last = runs.iter().filter(|r| r.job == j && r.session == session).max_by_key(|r| r.start);
            let next = if session == 2 && spec.enabled {
                spec.schedules.iter().filter_map(|&s| next_local[s]).min()
            } else {
                None
            };
            activity.push(ActivityRow {
                session_id: session,
                job_id: jobs[j].job_id.clone(),
                run_requested_date: last.map(|r| local(r.requested)),
                run_requested_source: last.map(|r| r.source.to_owned()),
                start_execution_date: last.map(|r| local(r.start)),
                last_executed_step_id: last.and_then(|r| r.last_step.map(|s| s.0)),
                last_executed_step_date: last.and_then(|r| r.last_step.map(|s| local(s.1))),
                stop_execution_date: last.and_then(|r| r.stop.map(local)),
                job_history_id: last.and_then(|r| r.outcome_row.map(|i| instance_of[i])),
                next_scheduled_run_date: next,
            });
        }
    }
    activity
}
/// The step attempts of one run and its `run_status` (0 failed, 1 succeeded).
fn execute(spec: &JobSpec, start: DateTime<Utc>, total: i64, plan: Plan, rng: &mut SmallRng) -> (Vec<Exec>, i64) {
    let mut execs = Vec::new();
    let mut t = start;
    for (k, s) in spec.steps.iter().enumerate() {
        let secs = ((total as f64 * s.share).round() as i64).max(1);
        let step_id = k as i64 + 1;
        let ok = |t: DateTime<Utc>, secs: i64, retries: i64| Exec {
            step_id,
            name: s.name,
            start: t,
            secs,
            status: 1,
            retries,
            message_id: 0,
            severity: 0,
            message: step_success(spec.run_as, s.subsystem),
        };
        match plan {
            Plan::Fail if k == spec.failure.step => {
                let secs = (secs as f64 * rng.random_range(0.2..1.0)).round().max(1.0) as i64;
                execs.push(Exec {
                    step_id,
                    name: s.name,
                    start: t,
                    secs,
                    status: 0,
                    retries: 0,
                    message_id: spec.failure.message_id,
                    severity: spec.failure.severity,
                    message: format!("Executed as user: {}. {}  The step failed.", spec.run_as, spec.failure.text),
                });
                return (execs, 0);
            }
            Plan::Retry if spec.retry.as_ref().is_some_and(|r| r.step == k) => {
                let retry = spec.retry.as_ref().expect("checked");
                let failed = Exec {
                    step_id,
                    name: s.name,
                    start: t,
                    secs: 31,
                    status: 2,
                    retries: 0,
                    message_id: 0,
                    severity: 0,
                    message: format!("Executed as user: {}. {}  The step failed.", spec.run_as, retry.text),
                };
                // retry_interval is one minute after the failed attempt ends.
                t = failed.end() + Duration::minutes(1);
                execs.push(failed);
                let x = ok(t, secs, 1);
                t = x.end();
                execs.push(x);
            }
            _ => {
                let x = ok(t, secs, 0);
                t = x.end();
                execs.push(x);
            }
        }
    }
    (execs, 1)
}
