//! The step a running SQL Agent job executes now (`vocab::step_now`): the data-driven cases of
//! `tests/cases/steps/*.toml` and properties on arbitrary jobs' steps (proptest).
//!
//! A `[[case]]`:
//!
//! ```toml
//! [[case]]
//! name = "success, go to step 4"
//! steps = [[1, 4, 4, 2, 0], [4, 1, 0, 2, 0]]  # [step_id, on_success_action, on_success_step_id,
//!                                             #  on_fail_action, on_fail_step_id]
//! start_step_id = 1                           # sysjobs.start_step_id (optional)
//! last = 1                                    # last_executed_step_id (absent: none finished)
//! last_outcome = "succeeded"                  # its step row's outcome (absent: no row says)
//! expect = 4                                  # or "none": the job quits there
//! ```
use crate::support::cases::{self, CaseFile};
use crate::support::cases_root;
use proptest::prelude::*;
use serde::Deserialize;
use sundial_engine::RunOutcome;
use sundial_engine::vocab::{StepFlow, step_now};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    case: Vec<Case>,
}

impl CaseFile for File {
    fn len(&self) -> usize {
        self.case.len()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    steps: Vec<[i64; 5]>,
    #[serde(default)]
    start_step_id: Option<i64>,
    #[serde(default)]
    last: Option<i64>,
    #[serde(default)]
    last_outcome: Option<String>,
    expect: toml::Value,
}

fn outcome(s: &str) -> Result<RunOutcome, String> {
    Ok(match s {
        "succeeded" => RunOutcome::Succeeded,
        "failed" => RunOutcome::Failed,
        "retry" => RunOutcome::Retry,
        "canceled" => RunOutcome::Canceled,
        other => return Err(format!("unknown last_outcome {other:?}")),
    })
}

fn flows(steps: &[[i64; 5]]) -> Vec<StepFlow> {
    steps
        .iter()
        .map(|s| StepFlow {
            step_id: s[0],
            on_success_action: s[1],
            on_success_step_id: s[2],
            on_fail_action: s[3],
            on_fail_step_id: s[4],
        })
        .collect()
}

fn check(case: &Case) -> Result<(), String> {
    let want = match &case.expect {
        toml::Value::Integer(n) => Some(*n),
        toml::Value::String(s) if s == "none" => None,
        other => return Err(format!("expect must be a step id or \"none\", not {other}")),
    };
    let last_outcome = case.last_outcome.as_deref().map(outcome).transpose()?;
    if last_outcome.is_some() && case.last.is_none() {
        return Err("last_outcome without last".into());
    }
    let got = step_now(&flows(&case.steps), case.start_step_id, case.last.map(|l| (l, last_outcome)));
    if got != want { Err(format!("expected {want:?}, got {got:?}")) } else { Ok(()) }
}

#[test]
fn step_now_cases() {
    let (files, mut failures) = cases::load_dir::<File>(&cases_root().join("steps"));
    let mut count = 0;
    for (file, f) in &files {
        for case in &f.case {
            count += 1;
            if let Err(e) = check(case) {
                failures.push(format!("{file}: {}: {e}", case.name));
            }
        }
    }
    assert!(count >= 12, "only {count} step cases ran");
    assert!(failures.is_empty(), "{} failing:\n{}", failures.len(), failures.join("\n"));
}

/// A job of 1..8 steps numbered 1..n, each with any action (0..5 to include values msdb never
/// writes) and any target (0..10, some beyond the job).
fn any_job() -> impl Strategy<Value = Vec<StepFlow>> {
    (1usize..8).prop_flat_map(|n| {
        proptest::collection::vec((0i64..6, 0i64..10, 0i64..6, 0i64..10), n).prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (sa, st, fa, ft))| StepFlow {
                    step_id: i as i64 + 1,
                    on_success_action: sa,
                    on_success_step_id: st,
                    on_fail_action: fa,
                    on_fail_step_id: ft,
                })
                .collect()
        })
    })
}

fn any_outcome() -> impl Strategy<Value = Option<RunOutcome>> {
    prop_oneof![
        Just(None),
        Just(Some(RunOutcome::Succeeded)),
        Just(Some(RunOutcome::Failed)),
        Just(Some(RunOutcome::Retry)),
        Just(Some(RunOutcome::Canceled)),
    ]
}

proptest! {
    /// The step named is always one of the job's; a quitting action never names one; a retry
    /// stays on its step.
    #[test]
    fn the_step_now_is_one_of_the_jobs(job in any_job(), last in 0i64..10, outcome in any_outcome(), start in proptest::option::of(0i64..10)) {
        let last = (last > 0).then_some((last, outcome));
        let got = step_now(&job, start, last);
        if let Some(id) = got {
            prop_assert!(job.iter().any(|s| s.step_id == id) || outcome == Some(RunOutcome::Retry), "{id} not in {job:?}");
        }
        match last {
            None => prop_assert!(got.is_some(), "a job with steps always has one to start"),
            Some((l, Some(RunOutcome::Retry))) => prop_assert_eq!(got, Some(l)),
            Some((l, Some(o))) => {
                if let Some(f) = job.iter().find(|s| s.step_id == l) {
                    let action = if o == RunOutcome::Succeeded { f.on_success_action } else { f.on_fail_action };
                    if !matches!(action, 3 | 4) {
                        prop_assert_eq!(got, None, "action {} quits", action);
                    }
                } else {
                    prop_assert_eq!(got, None, "a step the job lacks leads nowhere");
                }
            }
            Some((_, None)) => {}
        }
    }
}
