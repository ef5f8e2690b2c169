//! Primentra interval schedules chained from each fire (the cases are
//! `tests/cases/primentra/interval_chain.toml`): properties of the chain through forecast and
//! reconciliation together, on arbitrary fire sequences (proptest).
use chrono::{DateTime, TimeDelta, Utc};
use proptest::prelude::*;
use sundial_engine::primentra::{self, SchedulerConfiguration};
use sundial_engine::reconcile::{InstanceContext, Outcome, RunClass, Settings, reconcile};
use sundial_engine::{Run, RunOutcome, Trigger, Window, Zone};

/// A chain of fires: the first at `start`, each next one `(1 + gap) × interval + delay` after
/// the one before (`gap` whole intervals with no fire, `delay` the dispatcher's: it fires at its
/// first cycle after the time has passed, and it cycles every 60 s, so 0..60 s).
fn fires(start: DateTime<Utc>, minutes: i64, steps: &[(i64, i64)]) -> Vec<DateTime<Utc>> {
    let mut out = vec![start];
    for &(gap, delay) in steps {
        let last = *out.last().expect("one");
        out.push(last + TimeDelta::minutes((1 + gap) * minutes) + TimeDelta::seconds(delay));
    }
    out
}

fn config(minutes: i64, fired: &[DateTime<Utc>]) -> SchedulerConfiguration {
    let ts = |t: &DateTime<Utc>| t.format("%Y-%m-%d %H:%M:%S").to_string();
    SchedulerConfiguration {
        processing_mode: Some("scheduled".into()),
        schedule_type: Some("interval".into()),
        interval_minutes: Some(minutes.to_string()),
        last_run: fired.last().map(ts),
        fired: fired.iter().map(ts).collect(),
        ..SchedulerConfiguration::default()
    }
}

fn run(start: DateTime<Utc>) -> Run {
    Run {
        start,
        duration_secs: 20,
        outcome: RunOutcome::Succeeded,
        trigger: Trigger::Schedule(Some(1)),
        message: String::new(),
        steps: Vec::new(),
    }
}

fn any_chain() -> impl Strategy<Value = (i64, i64, Vec<(i64, i64)>)> {
    (
        1i64..240,
        0i64..86_400 * 30,
        proptest::collection::vec((prop_oneof![6 => Just(0i64), 1 => 1i64..4], 0i64..60), 1..40),
    )
}

proptest! {
    /// Runs where the chain expected them (with the dispatcher's delay of under 60 s) are each
    /// an expected run, on time; each whole interval with no fire is one missed run; nothing
    /// else is missed.
    #[test]
    fn runs_on_the_chain_are_expected_and_gaps_are_missed((minutes, offset, steps) in any_chain()) {
        let start = DateTime::<Utc>::from_timestamp(1_790_000_000 + offset, 0).expect("an instant");
        let fired = fires(start, minutes, &steps);
        let last = *fired.last().expect("one");
        let now = last + TimeDelta::seconds(30);
        let window = Window::new(start, now + TimeDelta::minutes(minutes));
        let f = primentra::forecast(1, &config(minutes, &fired), Zone::UTC, window);
        prop_assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
        let runs: Vec<Run> = fired.iter().map(|&t| run(t)).collect();
        let r = reconcile(&f.occurrences, &runs, window, now, None, &InstanceContext::default(), &Settings::default());
        for (i, c) in r.runs.iter().enumerate() {
            prop_assert!(matches!(c, RunClass::Expected { .. }), "run {i} at {} is {c:?}", runs[i].start);
        }
        let missed = r.outcomes.iter().filter(|o| matches!(o, Outcome::Missed { .. })).count() as i64;
        prop_assert_eq!(missed, steps.iter().map(|s| s.0).sum::<i64>());
        prop_assert!(r.outcomes.iter().all(|o| !matches!(o, Outcome::Late { .. })), "{:?}", r.outcomes);
    }

    /// A window that starts inside the chain (its fires before the window known, as the log read
    /// a day before it gives them): no run due in it is unscheduled.
    #[test]
    fn a_window_inside_the_chain_has_no_unscheduled_run((minutes, offset, steps) in any_chain(), cut in 0.0f64..1.0) {
        let start = DateTime::<Utc>::from_timestamp(1_790_000_000 + offset, 0).expect("an instant");
        let fired = fires(start, minutes, &steps);
        let last = *fired.last().expect("one");
        let now = last + TimeDelta::seconds(30);
        let from = start + TimeDelta::seconds(((last - start).num_seconds() as f64 * cut) as i64);
        let window = Window::new(from, now);
        let f = primentra::forecast(1, &config(minutes, &fired), Zone::UTC, window);
        let runs: Vec<Run> = fired.iter().filter(|t| window.contains(**t)).map(|&t| run(t)).collect();
        let r = reconcile(&f.occurrences, &runs, window, now, None, &InstanceContext::default(), &Settings::default());
        for (i, c) in r.runs.iter().enumerate() {
            // A run whose time was due before the window (up to 60 s before its start) has
            // its expected run outside the window, as in every dialect.
            if runs[i].start >= from + TimeDelta::seconds(60) {
                prop_assert!(!matches!(c, RunClass::Unscheduled), "run {i} at {} is unscheduled", runs[i].start);
            }
        }
    }
}
