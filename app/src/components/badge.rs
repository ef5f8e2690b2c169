//! Outcome badges: one color per outcome, the same everywhere.
use crate::api::Mark;
use crate::engine::RunOutcome;
use leptos::prelude::*;

/// CSS class suffix and `data-outcome` value of a run outcome.
pub fn outcome_key(o: RunOutcome) -> &'static str {
    match o {
        RunOutcome::Succeeded => "succeeded",
        RunOutcome::Failed => "failed",
        RunOutcome::Retry => "retry",
        RunOutcome::Canceled => "canceled",
        RunOutcome::InProgress => "in-progress",
        RunOutcome::Crashed => "crashed",
        RunOutcome::Abandoned => "abandoned",
        RunOutcome::Unknown => "unknown",
    }
}

pub fn outcome_label(o: RunOutcome) -> &'static str {
    match o {
        RunOutcome::Succeeded => "Succeeded",
        RunOutcome::Failed => "Failed",
        RunOutcome::Retry => "Retry",
        RunOutcome::Canceled => "Canceled",
        RunOutcome::InProgress => "In progress",
        RunOutcome::Crashed => "Crashed",
        RunOutcome::Abandoned => "Abandoned",
        RunOutcome::Unknown => "Unknown",
    }
}

/// A run's outcome as a colored pill.
#[component]
pub fn OutcomeBadge(outcome: RunOutcome) -> impl IntoView {
    view! {
        <span class=format!("badge o-{}", outcome_key(outcome)) data-outcome=outcome_key(outcome)>
            {outcome_label(outcome)}
        </span>
    }
}

/// What reconciliation said about an expected occurrence, as a pill.
#[component]
pub fn MarkBadge(mark: Mark) -> impl IntoView {
    view! { <span class=format!("badge m-{}", mark.key())>{mark.label()}</span> }
}
