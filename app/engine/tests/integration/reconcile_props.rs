//! Properties of reconciliation and zombie periods on arbitrary input (proptest).
use chrono::{DateTime, TimeDelta, Utc};
use proptest::prelude::*;
use sundial_engine::reconcile::{
    InstanceContext, MissCause, Outcome, Run, RunClass, RunOutcome, Settings, Trigger, reconcile, zombie_periods,
};
use sundial_engine::{Occurrence, Window};

fn base() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2024-01-01T00:00:00Z").unwrap().to_utc()
}

/// Mostly instants around a day, sometimes the very ends of time.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    prop_oneof![
        20 => (-2_000i64..90_000).prop_map(|s| base() + TimeDelta::seconds(s)),
        1 => Just(DateTime::<Utc>::MIN_UTC),
        1 => Just(DateTime::<Utc>::MAX_UTC),
    ]
}

/// Instants on a coarse grid, so that runs, occurrences and now often coincide.
fn grid_instant() -> impl Strategy<Value = DateTime<Utc>> {
    prop_oneof![
        6 => (0i64..200).prop_map(|k| base() + TimeDelta::seconds(k * 300)),
        2 => (0i64..200, -6i64..7).prop_map(|(k, d)| base() + TimeDelta::seconds(k * 300 + d)),
        2 => instant(),
    ]
}

fn occurrence() -> impl Strategy<Value = Occurrence> {
    (grid_instant(), 1i64..4).prop_map(|(at, schedule)| Occurrence {
        at,
        local: at.naive_utc(),
        nominal: at.naive_utc(),
        dst: None,
        schedule,
    })
}

fn run() -> impl Strategy<Value = Run> {
    let duration = prop_oneof![8 => -100i64..3_000, 1 => any::<i64>()];
    let outcome = prop_oneof![
        Just(RunOutcome::Failed),
        Just(RunOutcome::Succeeded),
        Just(RunOutcome::Retry),
        Just(RunOutcome::Canceled),
        Just(RunOutcome::InProgress),
    ];
    let trigger = prop_oneof![
        4 => prop::option::of(0i64..5).prop_map(Trigger::Schedule),
        1 => Just(Trigger::Manual),
        1 => Just(Trigger::Other("Alert".into())),
    ];
    (grid_instant(), duration, outcome, trigger).prop_map(|(start, duration_secs, outcome, trigger)| Run {
        start,
        duration_secs,
        outcome,
        trigger,
        message: String::new(),
        steps: Vec::new(),
    })
}

fn window() -> impl Strategy<Value = Window> {
    (grid_instant(), grid_instant()).prop_map(|(a, b)| Window::new(a, b))
}

#[derive(Debug, Clone)]
struct Input {
    occurrences: Vec<Occurrence>,
    runs: Vec<Run>,
    window: Window,
    now: DateTime<Utc>,
    horizon: Option<DateTime<Utc>>,
    ctx: InstanceContext,
    settings: Settings,
}

fn input() -> impl Strategy<Value = Input> {
    (
        (prop::collection::vec(occurrence(), 0..40), any::<bool>()),
        (prop::collection::vec(run(), 0..30), any::<bool>()),
        window(),
        grid_instant(),
        prop::option::of(grid_instant()),
        (
            prop::collection::vec(window(), 0..3),
            prop::collection::vec(grid_instant(), 0..4),
            prop::collection::vec(grid_instant(), 0..10),
        ),
        (prop_oneof![8 => 0i64..300, 1 => any::<i64>()], 0usize..5),
    )
        .prop_map(
            |(
                (mut occurrences, sort_o),
                (mut runs, sort_r),
                window,
                now,
                horizon,
                (zp, agent, starts),
                (grace, min_due),
            )| {
                if sort_o {
                    occurrences.sort_by_key(|o| o.at);
                }
                if sort_r {
                    runs.sort_by_key(|r| r.start);
                }
                let mut all_run_starts: Vec<DateTime<Utc>> = runs.iter().map(|r| r.start).chain(starts).collect();
                all_run_starts.sort();
                Input {
                    occurrences,
                    runs,
                    window,
                    now,
                    horizon,
                    ctx: InstanceContext { zombie_periods: zp, agent_starts: agent, all_run_starts, catches_up: false },
                    settings: Settings { grace_secs: grace, zombie_min_due: min_due },
                }
            },
        )
}

fn matched_run(o: &Outcome) -> Option<usize> {
    match o {
        Outcome::OnTime { run } | Outcome::Late { run, .. } => Some(*run),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn reconciliation_keeps_its_promises(i in input()) {
        let r = reconcile(&i.occurrences, &i.runs, i.window, i.now, i.horizon, &i.ctx, &i.settings);
        prop_assert_eq!(r.outcomes.len(), i.occurrences.len());
        prop_assert_eq!(r.runs.len(), i.runs.len());

        for (k, o) in r.outcomes.iter().enumerate() {
            let at = i.occurrences[k].at;
            if let Some(run) = matched_run(o) {
                // The run is recorded against an occurrence at the same instant (the merge), and
                // that occurrence names it back.
                let Some(RunClass::Expected { occurrence }) = r.runs.get(run) else {
                    return Err(TestCaseError::fail(format!("outcome {k} names run {run}, classed {:?}", r.runs.get(run))));
                };
                prop_assert_eq!(i.occurrences[*occurrence].at, at);
                prop_assert!(matches!(i.runs[run].trigger, Trigger::Schedule(_) | Trigger::Other(_)));
                prop_assert!(i.runs[run].outcome != RunOutcome::Retry);
                if let Outcome::Late { delay_secs, .. } = o {
                    prop_assert!(*delay_secs > i.settings.grace_secs.max(0));
                }
            }
            if let Outcome::Missed { cause } = o {
                prop_assert!(at <= i.now, "occurrence {} after now is missed", k);
                if let Some(h) = i.horizon {
                    prop_assert!(at >= h, "occurrence {} before the horizon is missed", k);
                }
                match cause {
                    MissCause::AgentZombie { period } => prop_assert!(period.contains(at)),
                    MissCause::AgentDown { restarted_at } => prop_assert!(*restarted_at >= at),
                    MissCause::SchedulerStopped { since } => prop_assert!(*since <= at),
                    MissCause::NoRun => {}
                }
            }
            if let Outcome::SkippedRunning { run } = o {
                prop_assert!(*run < i.runs.len());
                prop_assert!(i.runs[*run].start < at);
            }
            if at > i.now {
                let ok = matches!(o, Outcome::Upcoming | Outcome::OnTime { .. } | Outcome::Late { .. });
                prop_assert!(ok, "occurrence {} after now is {:?}", k, o);
            }
        }

        // No run is claimed by two instants; each expected run is named back by its occurrence.
        for (run, class) in r.runs.iter().enumerate() {
            let claimants: Vec<DateTime<Utc>> = r
                .outcomes
                .iter()
                .enumerate()
                .filter(|(_, o)| matched_run(o) == Some(run))
                .map(|(k, _)| i.occurrences[k].at)
                .collect();
            prop_assert!(claimants.windows(2).all(|w| w[0] == w[1]), "run {} claimed at {:?}", run, claimants);
            match class {
                RunClass::Expected { occurrence } => {
                    prop_assert_eq!(matched_run(&r.outcomes[*occurrence]), Some(run));
                }
                RunClass::Manual => prop_assert_eq!(&i.runs[run].trigger, &Trigger::Manual),
                RunClass::Unscheduled => {
                    prop_assert!(i.runs[run].trigger != Trigger::Manual);
                    prop_assert!(claimants.is_empty());
                }
            }
        }
    }

    #[test]
    fn zombie_periods_are_quiet_and_busy(
        due in prop::collection::vec(grid_instant(), 0..60),
        starts in prop::collection::vec(grid_instant(), 0..20),
        window in window(),
        now in grid_instant(),
        min_due in 0usize..6,
    ) {
        let periods = zombie_periods(&due, &starts, window, now, min_due);
        let end = window.end.min(now);
        for (k, p) in periods.iter().enumerate() {
            prop_assert!(!p.is_empty());
            prop_assert!(window.start <= p.start && p.end <= end);
            if k > 0 {
                prop_assert!(periods[k - 1].end <= p.start);
            }
            // Nothing started inside, and enough fell due.
            prop_assert!(!starts.iter().any(|s| p.start <= *s && *s < p.end));
            let busy = due.iter().filter(|d| p.contains(**d)).count();
            prop_assert!(busy >= min_due.max(1));
        }
    }
}
