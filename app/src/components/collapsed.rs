//! Consecutive missed runs shown as one line that expands to each of them (the job's table
//! and the log share it).
use super::{Sentence, Time};
use crate::api::{Collapsed, SentenceView, TimePoint};
use leptos::prelude::*;

/// `<details>`: "290 runs missed from … to …: why", expanding to the list of each miss
/// (at most [`crate::api::MEMBERS_SHOWN`]; `more` says where the rest are).
#[component]
pub fn CollapsedMisses(
    c: Collapsed,
    last: TimePoint,
    #[prop(into)] cause: SentenceView,
    more: &'static str,
) -> impl IntoView {
    let hidden = c.count.saturating_sub(c.members.len());
    let members = c.members.iter().map(|t| view! { <li><Time t=t.clone()/></li> }).collect_view();
    view! {
        <details class="collapsed-misses" data-testid="collapsed-misses" data-count=c.count>
            <summary>
                {format!("{} runs missed from ", c.count)}
                {c.first().cloned().map(|t| view! { <Time t=t/> })}
                " to "
                <Time t=last/>
                ": "
                <Sentence s=cause/>
            </summary>
            <ol class="members">{members}</ol>
            {(hidden > 0).then(|| view! { <p class="muted">{format!("… and {hidden} more: {more}")}</p> })}
        </details>
    }
}
