//! Outcome badges: one color per outcome, the same everywhere.
use crate::api::Mark;
use crate::engine::RunOutcome;
use leptos::prelude::*;
use sundial_model::links::{outcome_key, outcome_label};

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
