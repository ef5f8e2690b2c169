//! The fast paths of issue 15 ("Engine speed") give exactly what the straightforward code gave:
//! `reconcile` (and `Reconciler`, which prepares an instance's context once for many jobs)
//! against `reconcile_reference`, the code as it was; `fleet::analyze` against
//! `fleet::analyze_reference`; `log::derive` against `log::derive_reference`; on random inputs
//! (proptest).
use chrono::{DateTime, TimeDelta, Utc};
use proptest::prelude::*;
use sundial_engine::reconcile::{
    InstanceContext, Reconciler, Run, RunOutcome, Settings, Trigger, reconcile, reconcile_reference, zombie_periods,
    zombie_periods_reference,
};
use sundial_engine::{Occurrence, Window};

fn base() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2024-01-01T00:00:00Z").unwrap().to_utc()
}

/// Instants on a minute grid (so that runs, occurrences, starts and now often coincide or lie
/// within the 5 s of an early start), sometimes a few seconds off it, now and then anywhere or
/// at the very ends of time.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    prop_oneof![
        10 => (0i64..240).prop_map(|k| base() + TimeDelta::seconds(k * 60)),
        4 => (0i64..240, -7i64..8).prop_map(|(k, d)| base() + TimeDelta::seconds(k * 60 + d)),
        2 => (-600i64..15_000).prop_map(|s| base() + TimeDelta::seconds(s)),
        1 => Just(DateTime::<Utc>::MIN_UTC),
        1 => Just(DateTime::<Utc>::MAX_UTC),
    ]
}

fn occurrence() -> impl Strategy<Value = Occurrence> {
    (instant(), 1i64..4).prop_map(|(at, schedule)| Occurrence {
        at,
        local: at.naive_utc(),
        nominal: at.naive_utc(),
        dst: None,
        schedule,
    })
}

fn run() -> impl Strategy<Value = Run> {
    let duration = prop_oneof![8 => -100i64..1_500, 1 => any::<i64>()];
    let outcome = prop_oneof![
        Just(RunOutcome::Failed),
        Just(RunOutcome::Succeeded),
        Just(RunOutcome::Retry),
        Just(RunOutcome::Canceled),
        Just(RunOutcome::InProgress),
        Just(RunOutcome::Crashed),
        Just(RunOutcome::Abandoned),
        Just(RunOutcome::Unknown),
    ];
    let trigger = prop_oneof![
        4 => prop::option::of(0i64..5).prop_map(Trigger::Schedule),
        1 => Just(Trigger::Manual),
        2 => Just(Trigger::Other("Alert".into())),
    ];
    (instant(), duration, outcome, trigger).prop_map(|(start, duration_secs, outcome, trigger)| Run {
        start,
        duration_secs,
        outcome,
        trigger,
        message: String::new(),
        steps: Vec::new(),
    })
}

fn window() -> impl Strategy<Value = Window> {
    prop_oneof![
        4 => (instant(), 0i64..15_000).prop_map(|(a, len)| {
            Window::new(a, a.checked_add_signed(TimeDelta::seconds(len)).unwrap_or(a))
        }),
        1 => (instant(), instant()).prop_map(|(a, b)| Window::new(a, b)),
    ]
}

/// One job's occurrences and runs, sorted or not.
#[derive(Debug, Clone)]
struct Job {
    occurrences: Vec<Occurrence>,
    runs: Vec<Run>,
    horizon: Option<DateTime<Utc>>,
}

fn job() -> impl Strategy<Value = Job> {
    (
        (prop::collection::vec(occurrence(), 0..60), prop::bool::weighted(0.85)),
        (prop::collection::vec(run(), 0..50), prop::bool::weighted(0.85)),
        prop::option::of(instant()),
    )
        .prop_map(|((mut occurrences, sort_o), (mut runs, sort_r), horizon)| {
            if sort_o {
                occurrences.sort_by_key(|o| o.at);
            }
            if sort_r {
                runs.sort_by_key(|r| r.start);
            }
            Job { occurrences, runs, horizon }
        })
}

#[derive(Debug, Clone)]
struct Instance {
    jobs: Vec<Job>,
    window: Window,
    now: DateTime<Utc>,
    ctx: InstanceContext,
    settings: Settings,
}

fn instance() -> impl Strategy<Value = Instance> {
    (
        prop::collection::vec(job(), 1..4),
        window(),
        instant(),
        (
            prop::collection::vec(window(), 0..3),
            prop::collection::vec(instant(), 0..4),
            prop::collection::vec(instant(), 0..10),
            any::<bool>(),
        ),
        (prop_oneof![8 => 0i64..300, 1 => any::<i64>()], 0usize..5, any::<bool>()),
    )
        .prop_map(
            |(jobs, window, now, (zombie_periods, agent_starts, extra, sort_starts), (grace, min_due, catches_up))| {
                let mut all_run_starts: Vec<DateTime<Utc>> =
                    jobs.iter().flat_map(|j| j.runs.iter().map(|r| r.start)).chain(extra).collect();
                if sort_starts {
                    all_run_starts.sort();
                }
                Instance {
                    jobs,
                    window,
                    now,
                    ctx: InstanceContext { zombie_periods, agent_starts, all_run_starts, catches_up },
                    settings: Settings { grace_secs: grace, zombie_min_due: min_due },
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

    /// `reconcile` and one `Reconciler` over all the instance's jobs give what the
    /// straightforward reconciliation gave, diagnostics included.
    #[test]
    fn fast_reconciliation_is_the_reference(i in instance()) {
        let reconciler = Reconciler::new(&i.ctx, i.window, i.now, &i.settings);
        for j in &i.jobs {
            let want = reconcile_reference(&j.occurrences, &j.runs, i.window, i.now, j.horizon, &i.ctx, &i.settings);
            let got = reconcile(&j.occurrences, &j.runs, i.window, i.now, j.horizon, &i.ctx, &i.settings);
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&reconciler.reconcile(&j.occurrences, &j.runs, j.horizon), &want);
        }
    }
}

/// Instants, sorted or not, with repeats.
fn instants() -> impl Strategy<Value = Vec<DateTime<Utc>>> {
    (prop::collection::vec(instant(), 0..80), prop::bool::weighted(0.7)).prop_map(|(mut v, sort)| {
        if sort {
            v.sort();
        }
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

    /// The merge walk of due instants against starts finds the periods the binary searches found.
    #[test]
    fn fast_zombie_periods_are_the_reference(
        due in instants(),
        starts in instants(),
        window in window(),
        now in instant(),
        min_due in 0usize..6,
    ) {
        prop_assert_eq!(
            zombie_periods(&due, &starts, window, now, min_due),
            zombie_periods_reference(&due, &starts, window, now, min_due)
        );
    }
}

/// Dense, realistic input: an every-minute job over a day with early, late, missing, retried,
/// alert-started and overlapping runs; exercises long walks of the slot merge.
#[test]
fn every_minute_day_matches_the_reference() {
    let mut seed: u64 = 0x15;
    let mut next = move |n: i64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 33) as i64).rem_euclid(n)
    };
    let window = Window::new(base(), base() + TimeDelta::days(1));
    let now = base() + TimeDelta::hours(20);
    let occurrences: Vec<Occurrence> = (0..1_440)
        .map(|k| {
            let at = base() + TimeDelta::minutes(k);
            Occurrence {
                at,
                local: at.naive_utc(),
                nominal: at.naive_utc(),
                dst: None,
                schedule: 1 + (k % 7 == 0) as i64,
            }
        })
        .collect();
    let mut runs = Vec::new();
    for o in &occurrences {
        let r = next(100);
        if r < 5 || o.at > now {
            continue;
        }
        let start = o.at
            + TimeDelta::seconds(if r < 10 {
                -4
            } else if r < 15 {
                75
            } else {
                next(30)
            });
        let trigger = match r {
            15..=17 => Trigger::Other("Alert".into()),
            18 => Trigger::Manual,
            _ => Trigger::Schedule(Some(1)),
        };
        let outcome = if r == 19 { RunOutcome::Retry } else { RunOutcome::Succeeded };
        runs.push(Run { start, duration_secs: next(150), outcome, trigger, message: String::new(), steps: Vec::new() });
    }
    runs.sort_by_key(|r| r.start);
    let mut all_run_starts: Vec<DateTime<Utc>> = runs.iter().map(|r| r.start).collect();
    all_run_starts.sort();
    let ctx = InstanceContext {
        zombie_periods: vec![Window::new(base() + TimeDelta::hours(3), base() + TimeDelta::hours(4))],
        agent_starts: vec![base() + TimeDelta::hours(6)],
        all_run_starts,
        catches_up: false,
    };
    let settings = Settings::default();
    for horizon in [None, Some(base() + TimeDelta::hours(2))] {
        let want = reconcile_reference(&occurrences, &runs, window, now, horizon, &ctx, &settings);
        let got = reconcile(&occurrences, &runs, window, now, horizon, &ctx, &settings);
        assert_eq!(got, want);
    }
}

mod fleet {
    use super::{base, instant};
    use chrono::{DateTime, TimeDelta, Utc};
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;
    use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule, analyze, analyze_reference};
    use sundial_engine::log::{LogEvent, LogKind, derive, derive_reference};
    use sundial_engine::reconcile::Settings;
    use sundial_engine::{AgentSchedule, Run, RunOutcome, Schedule, Trigger, Window};

    /// Every `minutes` minutes, from `offset` minutes past midnight.
    fn every(id: i64, minutes: i64, offset: i64) -> JobSchedule {
        JobSchedule {
            id,
            name: format!("every {minutes}"),
            enabled: true,
            schedule: Schedule::Agent(AgentSchedule {
                freq_type: 4,
                freq_interval: 1,
                freq_subday_type: 4,
                freq_subday_interval: minutes,
                active_start_time: offset * 100,
                ..AgentSchedule::default()
            }),
        }
    }

    /// A job: its schedules (one or two, at times at one instant), runs around its
    /// occurrences (missing, early, late, silent spans), and what its source says.
    #[derive(Debug, Clone)]
    struct JobSpec {
        schedules: Vec<(i64, i64)>,
        /// Per occurrence: 0..60 on time, 60..75 late, 75..90 missed, else an alert run.
        fates: Vec<u8>,
        silent: Option<(i64, i64)>,
        enabled: bool,
        horizon: Option<DateTime<Utc>>,
        unobserved: Vec<Window>,
    }

    fn job_spec() -> impl Strategy<Value = JobSpec> {
        (
            prop::collection::vec((prop::sample::select(vec![1i64, 2, 5, 15]), 0i64..5), 1..3),
            prop::collection::vec(0u8..100, 400),
            prop::option::of((0i64..360, 10i64..120)),
            prop::bool::weighted(0.9),
            prop::option::weighted(0.2, instant()),
            prop::collection::vec((0i64..360, 1i64..60), 0..2),
        )
            .prop_map(|(schedules, fates, silent, enabled, horizon, unobserved)| JobSpec {
                schedules,
                fates,
                silent,
                enabled,
                horizon,
                unobserved: unobserved
                    .into_iter()
                    .map(|(a, len)| {
                        let start = base() + TimeDelta::minutes(a);
                        Window::new(start, start + TimeDelta::minutes(len))
                    })
                    .collect(),
            })
    }

    fn instance() -> impl Strategy<Value = (InstanceInput, Window, DateTime<Utc>, Settings)> {
        (
            prop::collection::vec(job_spec(), 1..5),
            prop::collection::vec(0i64..400, 0..3),
            prop::option::of((0i64..360, 10i64..90)),
            200i64..400,
            (0i64..120, 0usize..6),
            // Maintenance windows: start and length in minutes, over every job or one by name.
            prop::collection::vec((0i64..360, 10i64..120, prop::option::of(0usize..3)), 0..3),
        )
            .prop_map(|(specs, agent_starts, instance_silent, now_min, (grace, min_due), planned)| {
                let window = Window::new(base(), base() + TimeDelta::hours(6));
                let now = base() + TimeDelta::minutes(now_min);
                let in_span = |t: DateTime<Utc>, span: Option<(i64, i64)>| {
                    span.is_some_and(|(a, len)| {
                        Window::new(base() + TimeDelta::minutes(a), base() + TimeDelta::minutes(a + len)).contains(t)
                    })
                };
                let jobs = specs
                    .into_iter()
                    .enumerate()
                    .map(|(j, spec)| {
                        let schedules: Vec<JobSchedule> = spec
                            .schedules
                            .iter()
                            .enumerate()
                            .map(|(k, &(minutes, offset))| every(1 + k as i64, minutes, offset))
                            .collect();
                        let enabled: Vec<_> = schedules.iter().map(|s| (s.id, s.schedule.clone())).collect();
                        let forecast = sundial_engine::forecast_job(&enabled, chrono_tz::UTC.into(), window);
                        let mut runs = Vec::new();
                        for (occ, fate) in forecast.occurrences.iter().zip(spec.fates.iter().cycle()) {
                            if occ.at > now || in_span(occ.at, spec.silent) || in_span(occ.at, instance_silent) {
                                continue;
                            }
                            let (delay, trigger) = match fate {
                                0..60 => (i64::from(*fate % 8) - 3, Trigger::Schedule(Some(occ.schedule))),
                                60..75 => (90 + i64::from(*fate), Trigger::Schedule(None)),
                                75..90 => continue,
                                _ => (i64::from(*fate % 4), Trigger::Other("Alert".into())),
                            };
                            let outcome = if fate % 9 == 0 { RunOutcome::Failed } else { RunOutcome::Succeeded };
                            runs.push(Run {
                                start: occ.at + TimeDelta::seconds(delay),
                                duration_secs: i64::from(*fate) * 3,
                                outcome,
                                trigger,
                                message: String::new(),
                                steps: Vec::new(),
                            });
                        }
                        runs.sort_by_key(|r| r.start);
                        JobInput {
                            id: format!("job{j}"),
                            name: format!("Job {}", j % 3),
                            category: String::new(),
                            owner: None,
                            enabled: spec.enabled,
                            command: None,
                            schedules,
                            runs,
                            history_horizon: spec.horizon,
                            source_horizon: None,
                            unobserved: spec.unobserved,
                            diagnostics: Vec::new(),
                            earlier: Vec::new(),
                            modified: None,
                        }
                    })
                    .collect();
                let agent_starts = agent_starts.into_iter().map(|m| base() + TimeDelta::minutes(m - 30)).collect();
                let input = InstanceInput {
                    name: "PROP".into(),
                    tz: chrono_tz::UTC.into(),
                    jobs,
                    agent_starts,
                    maintenance: planned
                        .into_iter()
                        .map(|(a, len, job)| sundial_engine::maintenance::Maintenance {
                            window: Window::new(base() + TimeDelta::minutes(a), base() + TimeDelta::minutes(a + len)),
                            jobs: job.map(|j| vec![format!("Job {j}")]).unwrap_or_default(),
                            label: "planned".into(),
                        })
                        .collect(),
                    scheduler_stopped: false,
                };
                (input, window, now, Settings { grace_secs: grace, zombie_min_due: min_due })
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// One reconciliation per job, its misses in zombie periods relabelled, is the two
        /// reconciliations per job the steps describe.
        #[test]
        fn fast_analyze_is_the_reference((input, window, now, settings) in instance()) {
            let got = analyze(&input, window, now, &settings);
            let want = analyze_reference(&input, window, now, &settings);
            prop_assert_eq!(got, want);
        }
    }

    /// Lines a source gave (Primentra's log): for the instance's jobs, another job, the
    /// instance; in the window and out of it.
    fn source_events() -> impl Strategy<Value = Vec<LogEvent>> {
        let event = (
            prop::sample::select(vec!["job0", "job1", "job3", "zz", ""]),
            (-60i64..420, 0i64..3),
            prop::sample::select(LogKind::ALL.to_vec()),
        )
            .prop_map(|(job, (minute, second), kind)| LogEvent {
                at: base() + TimeDelta::minutes(minute) + TimeDelta::seconds(second),
                job_id: job.to_owned(),
                kind,
                text: format!("{kind:?}"),
                members: Vec::new(),
            });
        prop::collection::vec(event, 0..12)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// The log sorted by packed keys, its numbers written by hand, is the log as it was.
        #[test]
        fn fast_log_is_the_reference(
            (input, window, now, settings) in instance(),
            events in source_events(),
        ) {
            let report = analyze(&input, window, now, &settings);
            prop_assert_eq!(derive(&report, &events), derive_reference(&report, &events));
            prop_assert_eq!(derive(&report, &[]), derive_reference(&report, &[]));
        }

        /// A tally counts the lines the log lists, by day, job and kind, events and all.
        #[test]
        fn a_tally_counts_the_logs_lines(
            (input, window, now, settings) in instance(),
            events in source_events(),
        ) {
            let report = analyze(&input, window, now, &settings);
            let t = sundial_engine::log::tally(&report, &events);
            let mut counted: std::collections::BTreeMap<(u32, String, LogKind), (u32, u32)> = Default::default();
            for l in derive(&report, &events) {
                let day = t.day_of(l.at).expect("a line of the log is not before its window");
                prop_assert!(t.day(day).contains(l.at));
                let c = counted.entry((day, l.job_id.clone(), l.kind)).or_default();
                c.0 += 1;
                c.1 += l.count() as u32;
            }
            let tallied: std::collections::BTreeMap<(u32, String, LogKind), (u32, u32)> = t
                .cells
                .iter()
                .map(|c| ((c.day, t.jobs[c.job as usize].clone(), c.kind), (c.lines, c.events)))
                .collect();
            prop_assert_eq!(tallied, counted);
        }
    }

    /// The property above means something only if zombie periods occur: count them.
    #[test]
    fn the_generated_instances_have_zombie_periods() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = instance();
        let mut with_zombies = 0;
        for _ in 0..200 {
            let (input, window, now, settings) = strategy.new_tree(&mut runner).expect("a value").current();
            let report = analyze(&input, window, now, &settings);
            if !report.context.zombie_periods.is_empty()
                && report.jobs.iter().any(|j| {
                    j.reconciliation.outcomes.iter().any(|o| {
                        matches!(
                            o,
                            sundial_engine::Outcome::Missed {
                                cause: sundial_engine::reconcile::MissCause::AgentZombie { .. }
                            }
                        )
                    })
                })
            {
                with_zombies += 1;
            }
        }
        assert!(with_zombies >= 20, "only {with_zombies} of 200 instances had zombie misses");
    }
}
