//! Engine speed, measured against peers in the same run. `make bench` (or
//! `cargo bench -p sundial-engine --bench engine`) prints criterion's figures, then one line per
//! goal of issue 15, `ratio NAME: X.XXx (goal >= Y)`, each against the peer it names:
//! - occurrences per second of an every-10-seconds Agent schedule against croner iterating
//!   `*/10 * * * * *` over the same span, in UTC and in New York across the fall-back
//!   transition (and Sundial's stepwise reference, resolving every time, for scale);
//! - the time to the next run of a schedule whose active_start_date is 2004-01-01 against the
//!   same schedule started yesterday (the engine must jump, not walk, so the ratio is ~1);
//! - next-100 runs of every dialect (pg_cron expressions, a MySQL event, the job-table,
//!   Service Broker and Primentra schedulers) against the fastest of croner and the `cron`
//!   crate computing the same times;
//! - the what-if replay (`replay` group) of a 40-job instance over 7 days, in milliseconds per
//!   replay (the browser's budget is 50 ms).
use chrono::{DateTime, Duration, TimeZone, Utc};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::path::PathBuf;
use std::str::FromStr;
use sundial_engine::{self as engine, AgentSchedule, Schedule, Window};

const OCCURRENCES: i64 = 8_640; // one day of every-10-seconds

fn every_10_seconds() -> Schedule {
    Schedule::Agent(AgentSchedule {
        freq_type: 4,
        freq_interval: 1,
        freq_subday_type: 2,
        freq_subday_interval: 10,
        active_start_date: 20260101,
        active_start_time: 0,
        active_end_time: 235959,
        ..AgentSchedule::default()
    })
}

/// Every other week on Monday and Thursday at 02:30: a schedule whose alignment depends on
/// the start date, so a naive engine would walk from it.
fn biweekly(start_date: i64) -> Schedule {
    Schedule::Agent(AgentSchedule {
        freq_type: 8,
        freq_interval: 2 | 16,
        freq_recurrence_factor: 2,
        freq_subday_type: 1,
        active_start_date: start_date,
        active_start_time: 23000,
        ..AgentSchedule::default()
    })
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).single().expect("valid instant")
}

/// New York, from 2026-10-31 00:00 to 2026-11-03 00:00 local: three days across the fall-back
/// transition of 2026-11-01 (the repeated hour included).
fn ny_window() -> Window {
    let ny = chrono_tz::America::New_York;
    let at = |d: u32, m: u32| ny.with_ymd_and_hms(2026, m, d, 0, 0, 0).single().expect("unambiguous midnight");
    Window::new(at(31, 10).with_timezone(&Utc), at(3, 11).with_timezone(&Utc))
}

fn occurrences(c: &mut Criterion) {
    let schedule = every_10_seconds();
    let utc = Window::new(start(), start() + Duration::seconds(OCCURRENCES * 10));
    let ny = ny_window();
    let nyz: engine::Zone = chrono_tz::America::New_York.into();
    let cron = croner::Cron::from_str("*/10 * * * * *").expect("croner parses */10 seconds");
    let ny_count = engine::forecast(1, &schedule, nyz, ny).occurrences.len();
    let croner_ny_count = {
        let from = ny.start.with_timezone(&chrono_tz::America::New_York) - Duration::seconds(1);
        cron.iter_after(from).take_while(|t| t.with_timezone(&Utc) < ny.end).count()
    };
    let mut g = c.benchmark_group("occurrences_10s");
    g.throughput(Throughput::Elements(OCCURRENCES as u64));
    g.bench_function("sundial", |b| {
        b.iter(|| {
            let f = engine::forecast(1, black_box(&schedule), chrono_tz::UTC.into(), black_box(utc));
            assert_eq!(f.occurrences.len() as i64, OCCURRENCES);
            f.occurrences.len()
        })
    });
    g.bench_function("sundial_stepwise", |b| {
        let Schedule::Agent(a) = &schedule else { unreachable!("an Agent schedule") };
        b.iter(|| {
            engine::agent::forecast_stepwise(1, black_box(a), chrono_tz::UTC.into(), black_box(utc)).occurrences.len()
        })
    });
    g.bench_function("croner", |b| {
        b.iter(|| {
            let from = black_box(utc.start) - Duration::seconds(1);
            cron.iter_after(from).take(OCCURRENCES as usize).count()
        })
    });
    g.throughput(Throughput::Elements(ny_count as u64));
    g.bench_function("sundial_ny", |b| {
        b.iter(|| engine::forecast(1, black_box(&schedule), nyz, black_box(ny)).occurrences.len())
    });
    g.throughput(Throughput::Elements(croner_ny_count as u64));
    g.bench_function("croner_ny", |b| {
        b.iter(|| {
            let from = black_box(ny.start).with_timezone(&chrono_tz::America::New_York) - Duration::seconds(1);
            cron.iter_after(from).take(croner_ny_count).count()
        })
    });
    g.finish();
    COUNTS.with(|c| c.borrow_mut().extend([("ny", ny_count), ("croner_ny", croner_ny_count)]));
}

thread_local! {
    /// Occurrence counts measured in `occurrences`, for the ratios.
    static COUNTS: std::cell::RefCell<Vec<(&'static str, usize)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn count(name: &str) -> Option<usize> {
    COUNTS.with(|c| c.borrow().iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
}

/// pg_cron expressions: the next 100 runs after a fixed instant, Sundial's cron dialect
/// (croner wrapped for pg_cron semantics) against croner and the `cron` crate used directly.
const CRON_EXPRS: &[(&str, &str)] =
    &[("every_5_min", "*/5 * * * *"), ("weekdays_0230", "30 2 * * 1-5"), ("dom_or_dow", "0 4 1,15 * SUN")];
const CRON_N: usize = 100;

fn cron_next_n(c: &mut Criterion) {
    let after = Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).single().expect("valid instant");
    let mut g = c.benchmark_group("cron_next_100");
    g.throughput(Throughput::Elements(CRON_N as u64));
    for (name, expr) in CRON_EXPRS {
        let sundial = Schedule::Cron(engine::cron::CronSchedule::new(*expr));
        let croner = croner::Cron::from_str(expr).expect("croner parses");
        // The `cron` crate wants a seconds field (and a year, optionally).
        let cron_crate = cron::Schedule::from_str(&format!("0 {expr}")).expect("cron parses");
        let name = format!("cron_{name}");
        g.bench_function(BenchmarkId::new("sundial", &name), |b| {
            b.iter(|| {
                engine::next_after(1, black_box(&sundial), chrono_tz::UTC.into(), black_box(after), CRON_N)
                    .occurrences
                    .len()
            })
        });
        g.bench_function(BenchmarkId::new("croner", &name), |b| {
            b.iter(|| croner.iter_after(black_box(after)).take(CRON_N).count())
        });
        g.bench_function(BenchmarkId::new("cron", &name), |b| {
            b.iter(|| cron_crate.after(&black_box(after)).take(CRON_N).count())
        });
    }
    g.finish();
}

/// The other dialects' next 100 runs, each with the croner and `cron` expressions that give
/// the same times (checked before measuring).
fn dialects() -> Vec<(&'static str, Schedule, &'static str)> {
    let row = |v: serde_json::Value| serde_json::from_value::<Schedule>(v).expect("a valid schedule row");
    vec![
        (
            "mysql_event_every_5_min",
            row(serde_json::json!({"kind": "mysql_event", "EVENT_TYPE": "RECURRING", "INTERVAL_VALUE": "5",
                "INTERVAL_FIELD": "MINUTE", "STARTS": "2026-01-01 00:00:00", "TIME_ZONE": "UTC"})),
            "*/5 * * * *",
        ),
        (
            "job_table_every_5_min",
            row(serde_json::json!({"kind": "job_table", "job_schedule_start": "2026-01-01 00:00:00",
                "job_schedule_interval": 300})),
            "*/5 * * * *",
        ),
        (
            "service_broker_daily_0800",
            row(serde_json::json!({"kind": "service_broker", "ValidFrom": "2026-01-01 06:00:00", "FrequencyType": 1,
                "Frequency": 1, "RunAtInSecondsFromMidnight": 28800})),
            "0 8 * * *",
        ),
        (
            "primentra_every_15_min",
            row(serde_json::json!({"kind": "primentra", "ProcessingMode": "scheduled", "ScheduleType": "interval",
                "IntervalMinutes": 15, "last_run": "2026-11-22 11:45:00"})),
            "*/15 * * * *",
        ),
    ]
}

fn dialect_next_n(c: &mut Criterion) {
    let after = Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).single().expect("valid instant");
    let mut g = c.benchmark_group("dialect_next_100");
    g.throughput(Throughput::Elements(CRON_N as u64));
    for (name, schedule, expr) in dialects() {
        let croner = croner::Cron::from_str(expr).expect("croner parses");
        let cron_crate = cron::Schedule::from_str(&format!("0 {expr}")).expect("cron parses");
        let ours: Vec<_> = engine::next_after(1, &schedule, chrono_tz::UTC.into(), after, CRON_N)
            .occurrences
            .iter()
            .map(|o| o.at)
            .collect();
        let theirs: Vec<_> = cron_crate.after(&after).take(CRON_N).collect();
        assert_eq!(ours, theirs, "{name}: the peers' expression {expr} must give the same times");
        g.bench_function(BenchmarkId::new("sundial", name), |b| {
            b.iter(|| {
                engine::next_after(1, black_box(&schedule), chrono_tz::UTC.into(), black_box(after), CRON_N)
                    .occurrences
                    .len()
            })
        });
        g.bench_function(BenchmarkId::new("croner", name), |b| {
            b.iter(|| croner.iter_after(black_box(after)).take(CRON_N).count())
        });
        g.bench_function(BenchmarkId::new("cron", name), |b| {
            b.iter(|| cron_crate.after(&black_box(after)).take(CRON_N).count())
        });
    }
    g.finish();
}

/// What the simulator computes per keystroke in the browser, natively: the next 10 runs of an
/// Agent row in New York and its description (the browser's figure is the simulator's
/// end-to-end test, which adds parsing the row and updating the page).
fn simulator(c: &mut Criterion) {
    let row = every_10_seconds();
    let daily = biweekly(20261121);
    let after = Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).single().expect("valid instant");
    let ny: engine::Zone = chrono_tz::America::New_York.into();
    let mut g = c.benchmark_group("simulator");
    for (name, s) in [("next10_describe_10s", &row), ("next10_describe_biweekly", &daily)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let f = engine::next_after(1, black_box(s), ny, black_box(after), 10);
                (f.occurrences.len(), engine::describe(black_box(s)).len())
            })
        });
    }
    g.finish();
}

fn next_run(c: &mut Criterion) {
    let old = biweekly(20040101);
    let recent = biweekly(20261121);
    let after = Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).single().expect("valid instant");
    let mut g = c.benchmark_group("next_run");
    g.bench_function("start_2004", |b| {
        b.iter(|| engine::next_after(1, black_box(&old), chrono_tz::UTC.into(), black_box(after), 1).occurrences.len())
    });
    g.bench_function("start_yesterday", |b| {
        b.iter(|| {
            engine::next_after(1, black_box(&recent), chrono_tz::UTC.into(), black_box(after), 1).occurrences.len()
        })
    });
    g.finish();
}

/// The what-if editor's replay (`engine::replay`): a 40-job instance over 7 days, the realistic
/// mix of an Agent instance. The edited job moves from daily at 01:00 to hourly at :20 and takes
/// a job sharing its schedule along; the others are 4 every-5-minute jobs (bands), one every
/// 10 and one every 15 minutes, 10 hourly, 4 every 4 hours, 16 daily and 2 weekly, with
/// durations from seconds to two hours (2 without history). ~11,700 occurrences.
fn replay_instance() -> (engine::replay::EditedJob, Vec<engine::replay::OtherJob>, Window) {
    use engine::replay::{EditedJob, Estimate, OtherJob};
    let start = start();
    let window = Window::new(start, start + Duration::days(7));
    // Deterministic durations: a small LCG, no rand dependency.
    let mut seed: u64 = 0x5eed;
    let mut next = move |lo: i64, hi: i64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        lo + ((seed >> 33) as i64).rem_euclid(hi - lo + 1)
    };
    let every = |offset_secs: i64, step_secs: i64| -> Vec<DateTime<Utc>> {
        (0..).map(|k| start + Duration::seconds(offset_secs + k * step_secs)).take_while(|t| *t < window.end).collect()
    };
    let mut others = Vec::new();
    let mut add = |name: String, occurrences: Vec<DateTime<Utc>>, estimate: Option<Estimate>| {
        others.push(OtherJob { name, occurrences, estimate, shared_schedules: vec![], proposed: None });
    };
    let est = |p50: i64, p95: i64| Some(Estimate { p50_secs: p50, p95_secs: p95 });
    for k in 0..4 {
        let p50 = next(5, 90);
        add(format!("poll_{k}"), every(k * 60, 300), est(p50, p50 * 2));
    }
    add("queue_10m".into(), every(120, 600), est(45, 120));
    add("sync_15m".into(), every(0, 900), est(200, 400));
    for k in 0..10 {
        let p50 = next(30, 900);
        add(format!("hourly_{k}"), every(k * 5 * 60, 3_600), est(p50, p50 + next(0, 600)));
    }
    for k in 0..4 {
        let p50 = next(300, 1_800);
        add(format!("every_4h_{k}"), every(k * 1_800 + 600, 4 * 3_600), est(p50, p50 * 3 / 2));
    }
    for k in 0..16 {
        let name = format!("daily_{k}");
        let offset = next(0, 23 * 60) * 60;
        if k % 6 == 5 {
            add(name, every(offset, 86_400), None);
        } else {
            let p50 = next(60, 7_200);
            add(name, every(offset, 86_400), est(p50, p50 + next(0, 3_600)));
        }
    }
    for k in 0..2 {
        add(format!("weekly_{k}"), every(2 * 3_600 + k * 86_400, 7 * 86_400), est(3 * 3_600, 5 * 3_600));
    }
    let current = every(3_600, 86_400);
    let proposed = every(20 * 60, 3_600);
    others.push(OtherJob {
        name: "etl_twin".into(),
        occurrences: current.clone(),
        estimate: est(600, 900),
        shared_schedules: vec![7],
        proposed: None,
    });
    let edit = EditedJob { name: "etl".into(), current, proposed, estimate: est(1_500, 2_400) };
    (edit, others, window)
}

fn replay(c: &mut Criterion) {
    let (edit, others, window) = replay_instance();
    assert_eq!(others.len() + 1, 40);
    let settings = engine::replay::Settings::default();
    let impact = engine::replay::replay(&edit, &others, window, &settings);
    let runs: usize = others.iter().map(|o| o.occurrences.len()).sum::<usize>() + edit.current.len();
    println!(
        "replay: 40 jobs, 7 days, {runs} occurrences; created {} likely / {} possible, removed {} / {}, {} bands",
        impact.summary.created_likely,
        impact.summary.created_possible,
        impact.summary.removed_likely,
        impact.summary.removed_possible,
        impact.bands.len()
    );
    let mut g = c.benchmark_group("replay");
    g.bench_function("40_jobs_7_days", |b| {
        b.iter(|| engine::replay::replay(black_box(&edit), black_box(&others), black_box(window), &settings).summary)
    });
    g.finish();
}

fn print_replay() {
    let Some(dir) = criterion_dir() else { return };
    if let Some(ns) = mean_ns(&dir, "replay", "40_jobs_7_days") {
        println!("replay, 40 jobs x 7 days: {:.2} ms per replay (native; budget 50 ms in the browser)", ns / 1e6);
    }
}

/// criterion's mean (ns) for one benchmark of this run, from its estimates file.
fn mean_ns(dir: &std::path::Path, group: &str, id: &str) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join(group).join(id).join("new/estimates.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["mean"]["point_estimate"].as_f64()
}

fn criterion_dir() -> Option<PathBuf> {
    if let Ok(home) = std::env::var("CRITERION_HOME") {
        return Some(PathBuf::from(home));
    }
    // The bench binary lives in <target>/<profile>/deps/.
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("criterion"))
}

fn print_ratios() {
    let Some(dir) = criterion_dir() else { return };
    let get = |g: &str, id: &str| mean_ns(&dir, g, id);
    println!("\n== Sundial engine vs peers (same run; issue 15's goals) ==");
    let per_sec = |n: f64, ns: f64| n / (ns / 1e9);
    let n = OCCURRENCES as f64;
    if let (Some(s), Some(step), Some(c)) = (
        get("occurrences_10s", "sundial"),
        get("occurrences_10s", "sundial_stepwise"),
        get("occurrences_10s", "croner"),
    ) {
        println!(
            "every-10-seconds, UTC: sundial {:.1} M occurrences/s (stepwise reference {:.1} M/s), croner {:.1} M/s",
            per_sec(n, s) / 1e6,
            per_sec(n, step) / 1e6,
            per_sec(n, c) / 1e6
        );
        println!("ratio agent_10s_vs_croner_utc: {:.2}x (goal >= 10)", per_sec(n, s) / per_sec(n, c));
    }
    if let (Some(s), Some(c), Some(ns), Some(nc)) =
        (get("occurrences_10s", "sundial_ny"), get("occurrences_10s", "croner_ny"), count("ny"), count("croner_ny"))
    {
        let (ours, theirs) = (per_sec(ns as f64, s), per_sec(nc as f64, c));
        println!(
            "every-10-seconds, New York across the fall-back transition: sundial {:.1} M occurrences/s ({ns} in 3 days), croner {:.1} M/s ({nc})",
            ours / 1e6,
            theirs / 1e6
        );
        println!("ratio agent_10s_vs_croner_ny: {:.2}x (goal >= 10)", ours / theirs);
    }
    let next_n = |group: &str, name: &str| {
        if let (Some(s), Some(cr), Some(cc)) = (
            get(group, &format!("sundial/{name}")),
            get(group, &format!("croner/{name}")),
            get(group, &format!("cron/{name}")),
        ) {
            println!(
                "next {CRON_N} ({name}): sundial {:.1} us, croner {:.1} us, cron {:.1} us",
                s / 1e3,
                cr / 1e3,
                cc / 1e3
            );
            println!("ratio {name}_next{CRON_N}_vs_fastest_peer: {:.2}x (goal >= 1)", cr.min(cc) / s);
        }
    };
    for (name, _) in CRON_EXPRS {
        next_n("cron_next_100", &format!("cron_{name}"));
    }
    for (name, ..) in dialects() {
        next_n("dialect_next_100", name);
    }
    for name in ["next10_describe_10s", "next10_describe_biweekly"] {
        if let Some(ns) = get("simulator", name) {
            println!(
                "simulator per keystroke, native engine part ({name}): {:.1} us (the browser's whole keystroke: 1 ms)",
                ns / 1e3
            );
        }
    }
    if let (Some(old), Some(new)) = (get("next_run", "start_2004"), get("next_run", "start_yesterday")) {
        println!("next run: start 2004-01-01 {old:.0} ns, start yesterday {new:.0} ns");
        println!(
            "ratio next_run_start_yesterday_vs_2004: {:.2}x (goal >= 0.8: the start date costs nothing)",
            new / old
        );
    }
}

/// Risks ahead over 90 days: one job every minute (129,600 due times, overlapping itself) in
/// Berlin, alone and beside 50 hourly jobs that all collide.
fn risks(c: &mut Criterion) {
    use sundial_engine::cron::CronSchedule;
    use sundial_engine::durations::DurationStats;
    use sundial_engine::fleet::JobSchedule;
    use sundial_engine::risks::{self, JobAhead};
    let tz = engine::Zone::from(chrono_tz::Europe::Berlin);
    let now = Utc.with_ymd_and_hms(2026, 11, 28, 12, 0, 0).unwrap();
    let horizon = Window::new(now, now + Duration::days(90));
    let sched = |id, e: &str| {
        vec![JobSchedule { id, name: String::new(), enabled: true, schedule: Schedule::Cron(CronSchedule::new(e)) }]
    };
    let (minute, hourly) = (sched(1, "* * * * *"), sched(2, "0 * * * *"));
    let names: Vec<String> = (0..50).map(|i| format!("hourly {i:02}")).collect();
    let d = |p50, p95| Some(DurationStats { count: 10, p50, p95, max: p95 });
    let mut jobs =
        vec![JobAhead { id: "m", name: "every minute", enabled: true, schedules: &minute, durations: d(30, 90) }];
    let mut g = c.benchmark_group("risks");
    g.sample_size(10);
    g.bench_function("every_minute_90d", |b| b.iter(|| black_box(risks::ahead(black_box(&jobs), tz, horizon))));
    for n in &names {
        jobs.push(JobAhead { id: n, name: n, enabled: true, schedules: &hourly, durations: d(900, 1200) });
    }
    g.bench_function("every_minute_and_50_hourly_90d", |b| {
        b.iter(|| black_box(risks::ahead(black_box(&jobs), tz, horizon)))
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    risks(&mut c);
    occurrences(&mut c);
    next_run(&mut c);
    cron_next_n(&mut c);
    dialect_next_n(&mut c);
    simulator(&mut c);
    replay(&mut c);
    c.final_summary();
    if std::env::args().any(|a| a == "--bench") {
        print_ratios();
        print_replay();
    }
}
