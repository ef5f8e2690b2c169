//! Fleet-scale speed (issue 15): reconciliation of 1,000 jobs over 90 days, and the fleet
//! report (forecast + reconcile + log, `fleet::analyze` and `log::derive` per instance) of
//! 50 instances × 40 jobs over 30 days. `make bench` (or
//! `cargo bench -p sundial-engine --bench fleet`) prints criterion's figures, then the goal
//! lines:
//!
//! ```text
//! time reconcile_1000x90d: N ms (goal <= 500)
//! memory reconcile_1000x90d: peak N MB above baseline (window-proportional: …)
//! time fleet_report_2000x30d: N ms (goal <= 1000)
//! ```
//!
//! The `time` lines are the median of a few runs on one thread, as time on a CPU (Linux's
//! schedstat: the cores are shared with others) and wall-clock (std::time::Instant); memory
//! comes from the counting global allocator below (current and peak bytes allocated, counted
//! only while memory is measured).
//!
//! Memory is the peak above the baseline (inputs built) while every job is reconciled and the
//! results kept, as a report keeps them. Each job is handed the runs the server hands the engine
//! for the window (`within` in server/src/fleet.rs: those starting in it or still going at its
//! start), borrowed from a longer history kept in memory. Window-proportional: a 45-day window
//! of the same 90-day history takes half, and a 180-day history with the same 90-day window
//! the same; the results (an outcome per occurrence, a class per run: parallel to the input by
//! the API) are nearly all of it, the working set besides them a fraction of a MB.
//! Inputs are deterministic: a small LCG, no rand dependency.
use chrono::{DateTime, Duration, TimeZone, Utc};
use criterion::Criterion;
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::Instant;
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::reconcile::{InstanceContext, Reconciler, Reconciliation, Settings};
use sundial_engine::{self as engine, AgentSchedule, Occurrence, Run, RunOutcome, Schedule, Trigger, Window, Zone};

// ---------------------------------------------------------------------------------------------
// Counting allocator: current and peak bytes.

struct Counting;

/// Bytes allocated and not yet freed, since the start (may go below a baseline taken later:
/// what was allocated before and freed after it).
static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
/// Counting only while measuring memory: the timed runs pay no atomic per allocation.
static COUNTING: AtomicBool = AtomicBool::new(false);

fn grew(n: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        let n = n as isize;
        let now = CURRENT.fetch_add(n, Ordering::Relaxed) + n;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn shrank(n: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        CURRENT.fetch_sub(n as isize, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to System unchanged; only counters are updated besides.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Peak bytes allocated during `f` above what was allocated when it started (what `f` returns
/// is dropped after the count stops, so it counts).
fn peak_above_baseline<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let baseline = CURRENT.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let out = f();
    COUNTING.store(false, Ordering::Relaxed);
    (out, (PEAK.load(Ordering::Relaxed) - baseline).max(0) as usize)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

// ---------------------------------------------------------------------------------------------
// Deterministic inputs.

struct Lcg(u64);

impl Lcg {
    /// Uniform in `lo..=hi`.
    fn next(&mut self, lo: i64, hi: i64) -> i64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        lo + ((self.0 >> 33) as i64).rem_euclid(hi - lo + 1)
    }
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).single().expect("valid instant")
}

fn run(start: DateTime<Utc>, duration_secs: i64, outcome: RunOutcome, trigger: Trigger, message: &str) -> Run {
    Run { start, duration_secs, outcome, trigger, message: message.to_owned(), steps: Vec::new() }
}

/// Runs of one job for its (sorted) occurrence instants before `now`: mostly on time, some
/// late, some missed (`miss_per_mille`), some failed (`fail_per_mille`), a manual run now and
/// then, an alert-started one rarely; each run shorter than the job's period.
fn runs_for(
    at: &[(DateTime<Utc>, i64)],
    period_secs: i64,
    miss_per_mille: i64,
    fail_per_mille: i64,
    now: DateTime<Utc>,
    rng: &mut Lcg,
) -> Vec<Run> {
    let typical = rng.next(1, (period_secs / 4).clamp(1, 1_800));
    let mut runs = Vec::with_capacity(at.len());
    for &(t, schedule) in at {
        if t >= now - Duration::seconds(60) {
            break;
        }
        let r = rng.next(0, 999);
        if r < miss_per_mille {
            continue;
        }
        let delay = if r < miss_per_mille + 30 { rng.next(90, 900) } else { rng.next(0, 20) };
        let duration = (typical + rng.next(0, typical / 2 + 1)).min(period_secs / 2).max(1);
        let (outcome, message) = if rng.next(0, 999) < fail_per_mille {
            (RunOutcome::Failed, "The job failed.  The Job was invoked by Schedule.  The last step to run was step 1.")
        } else {
            (RunOutcome::Succeeded, "")
        };
        let trigger =
            if rng.next(0, 999) < 3 { Trigger::Other("Alert".into()) } else { Trigger::Schedule(Some(schedule)) };
        let start = t + Duration::seconds(delay);
        runs.push(run(start, duration, outcome, trigger, message));
        if rng.next(0, 999) < 2 {
            let manual = start + Duration::seconds(period_secs / 2);
            if manual < now {
                runs.push(run(manual, duration, RunOutcome::Succeeded, Trigger::Manual, ""));
            }
        }
    }
    runs.sort_by_key(|r| r.start);
    runs
}

// -- Reconciliation: occurrences given (no forecast), 1,000 jobs in 25 instances of 40. -------

struct ReconcileJob {
    occurrences: Vec<Occurrence>,
    /// The whole history kept.
    runs: Vec<Run>,
    /// `runs[window_from..]` are the runs the server hands the engine for the window (those
    /// starting in it or ending after its start: `within` in server/src/fleet.rs), borrowed.
    window_from: usize,
    instance: usize,
}

struct ReconcileData {
    jobs: Vec<ReconcileJob>,
    contexts: Vec<InstanceContext>,
    window: Window,
    now: DateTime<Utc>,
}

impl ReconcileData {
    /// Occurrences, runs in the window, runs kept in all.
    fn counts(&self) -> (usize, usize, usize) {
        let jobs = &self.jobs;
        (
            jobs.iter().map(|j| j.occurrences.len()).sum(),
            jobs.iter().map(|j| j.runs.len() - j.window_from).sum(),
            jobs.iter().map(|j| j.runs.len()).sum(),
        )
    }
}

/// `jobs` jobs whose window is the `window_days` before now and whose runs go back
/// `history_days` (at least the window). Per 10 jobs: every 10 min, every 15 min, 2 hourly,
/// 6 daily (~26,500 occurrences per 90 days, about as many runs).
fn reconcile_data(jobs: usize, window_days: i64, history_days: i64) -> ReconcileData {
    let now = now();
    let window = Window::ending_at(now, Duration::days(window_days));
    let history_start = now - Duration::days(history_days.max(window_days));
    let mut rng = Lcg(0x5eed_0001);
    let per_instance = 40;
    let instances = jobs.div_ceil(per_instance);
    // Instance 3 goes silent for 3 hours five days ago (a zombie); instance 7's Agent is down
    // for 40 minutes two days ago and restarts.
    let zombie = Window::new(now - Duration::days(5), now - Duration::days(5) + Duration::hours(3));
    let down = Window::new(now - Duration::days(2), now - Duration::days(2) + Duration::minutes(40));
    let mut out = Vec::with_capacity(jobs);
    for j in 0..jobs {
        let period = match j % 10 {
            0 => 600,
            1 => 900,
            2 | 3 => 3_600,
            _ => 86_400,
        };
        let offset = rng.next(0, period / 60 - 1) * 60;
        let mut all = Vec::new();
        let mut t = history_start + Duration::seconds(offset);
        while t < window.end {
            all.push((t, 1));
            t += Duration::seconds(period);
        }
        let instance = j / per_instance;
        let miss = if j % 17 == 0 { 20 } else { 2 };
        let fail = if j % 13 == 0 { 100 } else { 5 };
        let mut runs = runs_for(&all, period, miss, fail, now, &mut rng);
        if instance == 3 {
            runs.retain(|r| !zombie.contains(r.start));
        }
        if instance == 7 {
            runs.retain(|r| !down.contains(r.start));
        }
        let occurrences = all
            .iter()
            .filter(|(t, _)| window.contains(*t))
            .map(|&(at, schedule)| Occurrence {
                at,
                local: at.naive_utc(),
                nominal: at.naive_utc(),
                dst: None,
                schedule,
            })
            .collect();
        let in_window = |r: &Run| window.contains(r.start) || r.end() > window.start;
        let window_from = runs.partition_point(|r| !in_window(r));
        assert!(runs[window_from..].iter().all(in_window), "the window's runs are a suffix of the history");
        out.push(ReconcileJob { occurrences, runs, window_from, instance });
    }
    let contexts = (0..instances)
        .map(|i| {
            let mut all_run_starts: Vec<DateTime<Utc>> =
                out.iter().filter(|j| j.instance == i).flat_map(|j| j.runs.iter().map(|r| r.start)).collect();
            all_run_starts.sort_unstable();
            let mut agent_starts = vec![history_start - Duration::days(3)];
            if i == 7 {
                agent_starts.push(down.end);
            }
            let zombie_periods = if i == 3 { vec![zombie] } else { Vec::new() };
            InstanceContext { zombie_periods, agent_starts, all_run_starts, catches_up: false }
        })
        .collect();
    ReconcileData { jobs: out, contexts, window, now }
}

fn reconcile_all(data: &ReconcileData) -> Vec<Reconciliation> {
    let settings = Settings::default();
    // One `Reconciler` per instance: its context (every run start, sorted) is checked once.
    let reconcilers: Vec<Reconciler> =
        data.contexts.iter().map(|ctx| Reconciler::new(ctx, data.window, data.now, &settings)).collect();
    data.jobs
        .iter()
        .map(|j| reconcilers[j.instance].reconcile(&j.occurrences, &j.runs[j.window_from..], None))
        .collect()
}

/// Bytes the results hold (their own vectors; diagnostics' strings left out).
fn results_bytes(results: &[Reconciliation]) -> usize {
    results
        .iter()
        .map(|r| {
            r.outcomes.capacity() * size_of::<engine::Outcome>()
                + r.runs.capacity() * size_of::<engine::reconcile::RunClass>()
                + r.diagnostics.capacity() * size_of::<engine::Diagnostic>()
        })
        .sum::<usize>()
        + size_of_val(results)
}

// -- Fleet report: 50 instances × 40 Agent jobs over 30 days. ---------------------------------

fn agent(freq_type: i64, freq_interval: i64, subday_type: i64, subday_interval: i64, start_time: i64) -> Schedule {
    Schedule::Agent(AgentSchedule {
        freq_type,
        freq_interval,
        freq_subday_type: subday_type,
        freq_subday_interval: subday_interval,
        freq_recurrence_factor: if freq_type == 8 { 1 } else { 0 },
        active_start_date: 20240101,
        active_start_time: start_time,
        ..AgentSchedule::default()
    })
}

/// The 40 schedules of an instance: 4 every 5 minutes, every 10, every 15 (two), every 30,
/// 10 hourly, 2 every 2 hours, 4 every 4 hours, 14 daily, 2 weekly. (name, schedule, period s)
fn instance_schedules(rng: &mut Lcg) -> Vec<(String, Schedule, i64)> {
    let mut s = Vec::new();
    let minute = |rng: &mut Lcg, upto: i64| rng.next(0, upto - 1) * 100;
    for k in 0..4 {
        s.push((format!("poll_{k}"), agent(4, 1, 4, 5, k * 100), 300));
    }
    s.push(("queue_10m".into(), agent(4, 1, 4, 10, 200), 600));
    s.push(("sync_15m".into(), agent(4, 1, 4, 15, 0), 900));
    s.push(("sync_15m_b".into(), agent(4, 1, 4, 15, 700), 900));
    s.push(("export_30m".into(), agent(4, 1, 4, 30, 1_000), 1_800));
    for k in 0..10 {
        s.push((format!("hourly_{k}"), agent(4, 1, 8, 1, minute(rng, 60)), 3_600));
    }
    for k in 0..2 {
        s.push((format!("two_hourly_{k}"), agent(4, 1, 8, 2, 1_500 + k * 100), 7_200));
    }
    for k in 0..4 {
        s.push((format!("every_4h_{k}"), agent(4, 1, 8, 4, 3_000 + k * 10_000), 14_400));
    }
    for k in 0..14 {
        let t = rng.next(0, 23) * 10_000 + minute(rng, 60);
        s.push((format!("daily_{k}"), agent(4, 1, 1, 0, t), 86_400));
    }
    for k in 0..2 {
        s.push((format!("weekly_{k}"), agent(8, 1 << (k * 3), 1, 0, 20_000), 7 * 86_400));
    }
    s
}

fn fleet_inputs(instances: usize, days: i64) -> (Vec<InstanceInput>, Window, DateTime<Utc>) {
    let now = now();
    let window = Window::ending_at(now, Duration::days(days));
    let mut rng = Lcg(0xf1ee7);
    let zones: [Zone; 3] =
        [chrono_tz::UTC.into(), chrono_tz::Europe::Amsterdam.into(), chrono_tz::America::New_York.into()];
    let mut out = Vec::with_capacity(instances);
    for i in 0..instances {
        let tz = zones[i % zones.len()];
        let schedules = instance_schedules(&mut rng);
        let silent = Window::new(now - Duration::days(3), now - Duration::days(3) + Duration::hours(2));
        let mut jobs = Vec::with_capacity(schedules.len());
        for (j, (name, schedule, period)) in schedules.into_iter().enumerate() {
            let id = 1 + j as i64;
            let forecast = engine::forecast(id, &schedule, tz, window);
            let at: Vec<(DateTime<Utc>, i64)> = forecast.occurrences.iter().map(|o| (o.at, o.schedule)).collect();
            // A few jobs fail or miss often; most rarely.
            let miss = if (i + j) % 23 == 0 { 50 } else { 1 };
            let fail = if (i + j) % 11 == 0 { 150 } else { 3 };
            let mut runs = runs_for(&at, period, miss, fail, now, &mut rng);
            if i % 10 == 4 {
                // A silent Agent: a zombie period.
                runs.retain(|r| !silent.contains(r.start));
            }
            // msdb keeps 100 rows per job by default: the busy jobs' horizon is inside the window.
            let history_horizon =
                if runs.len() > 2_000 && i % 2 == 0 { runs.get(runs.len() - 2_000).map(|r| r.start) } else { None };
            jobs.push(JobInput {
                id: format!("{:08X}-0000-0000-0000-{:012X}", i, j),
                name,
                category: "[Uncategorized (Local)]".into(),
                owner: None,
                enabled: j != 39 || i % 5 != 0,
                command: None,
                schedules: vec![JobSchedule { id, name: format!("sched {id}"), enabled: true, schedule }],
                runs,
                history_horizon,
                source_horizon: None,
                unobserved: Vec::new(),
                diagnostics: Vec::new(),
                earlier: Vec::new(),
                modified: None,
            });
        }
        let mut agent_starts = vec![window.start - Duration::days(10)];
        if i % 10 == 7 {
            agent_starts.push(now - Duration::days(1));
        }
        out.push(InstanceInput {
            name: format!("SQL{i:02}"),
            tz,
            jobs,
            agent_starts,
            maintenance: Vec::new(),
            scheduler_stopped: false,
        });
    }
    (out, window, now)
}

/// The fleet report as the server builds it per instance: analyze, then the log.
fn fleet_report(inputs: &[InstanceInput], window: Window, now: DateTime<Utc>) -> usize {
    let settings = Settings::default();
    let mut lines = 0;
    for input in inputs {
        let report = engine::fleet::analyze(input, window, now, &settings);
        lines += engine::log::derive(&report, &[]).len();
    }
    lines
}

/// Forecast alone: what `analyze` spends in `forecast_job`.
fn fleet_forecast(inputs: &[InstanceInput], window: Window) -> usize {
    let mut n = 0;
    for input in inputs {
        for job in &input.jobs {
            let s: Vec<_> = job.schedules.iter().map(|s| (s.id, s.schedule.clone())).collect();
            n += engine::forecast_job(&s, input.tz, window).occurrences.len();
        }
    }
    n
}

/// The median time on one core of `runs` runs of `f`, in ms.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    timed(runs, &mut f).0
}

/// This thread's time on a CPU so far, in ms (Linux: /proc/thread-self/schedstat, whose first
/// field is nanoseconds run); `None` elsewhere.
fn cpu_ms() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e6)
}

/// Medians of `runs` runs of `f`: (the time on one core, wall-clock time), in ms. The machine's
/// cores are shared: the time this thread spent on a CPU is what one core took; wall-clock
/// time also counts the waits for a core. Without schedstat, both are wall-clock.
// The benchmark measures time; the engine it measures never reads the clock.
#[allow(clippy::disallowed_methods)]
fn timed(runs: usize, f: &mut impl FnMut()) -> (f64, f64) {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (mut on_cpu, mut wall) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let (c, t) = (cpu_ms(), Instant::now());
        f();
        let w = t.elapsed().as_secs_f64() * 1e3;
        wall.push(w);
        on_cpu.push(match (c, cpu_ms()) {
            (Some(a), Some(b)) => b - a,
            _ => w,
        });
    }
    (median(on_cpu), median(wall))
}

// ---------------------------------------------------------------------------------------------

fn benches(c: &mut Criterion, rec: &ReconcileData, fleet: &(Vec<InstanceInput>, Window, DateTime<Utc>)) {
    let mut g = c.benchmark_group("fleet");
    g.sample_size(10)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(12));
    g.bench_function("reconcile_1000x90d", |b| b.iter(|| reconcile_all(black_box(rec)).len()));
    let (inputs, window, now) = fleet;
    g.bench_function("fleet_report_2000x30d", |b| b.iter(|| fleet_report(black_box(inputs), *window, *now)));
    g.bench_function("forecast_2000x30d", |b| b.iter(|| fleet_forecast(black_box(inputs), *window)));
    let settings = Settings::default();
    let reports: Vec<_> = inputs.iter().map(|i| engine::fleet::analyze(i, *window, *now, &settings)).collect();
    g.bench_function("log_derive_2000x30d", |b| {
        b.iter(|| reports.iter().map(|r| engine::log::derive(black_box(r), &[]).len()).sum::<usize>())
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let measuring = std::env::args().any(|a| a == "--bench") && !std::env::args().any(|a| a == "--profile-time");
    let rec = reconcile_data(1_000, 90, 90);
    let fleet = fleet_inputs(50, 30);
    benches(&mut c, &rec, &fleet);
    c.final_summary();
    if !measuring {
        return;
    }

    // Reconciliation: time, then memory.
    let (occ, runs, _) = rec.counts();
    println!("\nreconcile: 1,000 jobs, 90 days: {occ} occurrences + {runs} runs = {} in total", occ + runs);
    let (ms, wall) = timed(5, &mut || {
        black_box(reconcile_all(&rec));
    });
    println!("time reconcile_1000x90d: {ms:.0} ms (goal <= 500)");
    println!("  (on one core: this thread's CPU time, median of 5; wall-clock {wall:.0} ms on the shared machine)");

    let peak = |d: &ReconcileData| {
        let (results, peak) = peak_above_baseline(|| reconcile_all(d));
        let kept = results_bytes(&results);
        drop(results);
        (peak, kept)
    };
    let (p90, kept90) = peak(&rec);
    drop(rec);
    let half = reconcile_data(1_000, 45, 90);
    let (p45, kept45) = peak(&half);
    drop(half);
    let long = reconcile_data(1_000, 90, 180);
    let (_, _, history_l) = long.counts();
    let (p90l, kept90l) = peak(&long);
    drop(long);
    println!(
        "memory reconcile_1000x90d: peak {:.1} MB above baseline, of which {:.1} MB the results kept (window-proportional: \
         45 d window of 90 d history {:.1} MB ({:.1} results), 90 d window of 90 d history {:.1} MB, \
         90 d window of 180 d history ({history_l} runs kept) {:.1} MB ({:.1} results))",
        mb(p90),
        mb(kept90),
        mb(p45),
        mb(kept45),
        mb(p90),
        mb(p90l),
        mb(kept90l)
    );
    println!(
        "memory reconcile_1000x90d working set (peak less the results): 45 d/90 d {:.1} MB, 90 d/90 d {:.1} MB, 90 d/180 d {:.1} MB",
        mb(p45.saturating_sub(kept45)),
        mb(p90.saturating_sub(kept90)),
        mb(p90l.saturating_sub(kept90l))
    );

    // Fleet report.
    let (inputs, window, now) = &fleet;
    let jobs: usize = inputs.iter().map(|i| i.jobs.len()).sum();
    let runs: usize = inputs.iter().flat_map(|i| &i.jobs).map(|j| j.runs.len()).sum();
    let occurrences = fleet_forecast(inputs, *window);
    println!("\nfleet: {} instances, {jobs} jobs, 30 days: {occurrences} occurrences, {runs} runs", inputs.len());
    let (ms, wall) = timed(5, &mut || {
        black_box(fleet_report(inputs, *window, *now));
    });
    let forecast_ms = median_ms(5, || {
        black_box(fleet_forecast(inputs, *window));
    });
    let settings = Settings::default();
    let analyze_ms = median_ms(3, || {
        for input in inputs {
            black_box(engine::fleet::analyze(input, *window, *now, &settings));
        }
    });
    let reports: Vec<_> = inputs.iter().map(|i| engine::fleet::analyze(i, *window, *now, &settings)).collect();
    let log_ms = median_ms(3, || {
        for r in &reports {
            black_box(engine::log::derive(r, &[]));
        }
    });
    drop(reports);
    println!("time fleet_report_2000x30d: {ms:.0} ms (goal <= 1000)");
    println!("  (on one core: this thread's CPU time, median of 5; wall-clock {wall:.0} ms on the shared machine)");
    println!(
        "time fleet_report_2000x30d parts: analyze {analyze_ms:.0} ms (forecast included), log::derive {log_ms:.0} ms"
    );
    println!(
        "time fleet_report_2000x30d forecast share: forecast_job {forecast_ms:.0} ms of {ms:.0} ms ({:.0} %), the rest {:.0} ms",
        forecast_ms / ms * 100.0,
        ms - forecast_ms
    );
}
