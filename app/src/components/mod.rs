//! Components shared by pages.
pub mod badge;
pub mod cannot_tell;
pub mod chart;
pub mod collapsed;
pub mod header;
pub mod instance_chart;
pub mod refresh;
pub mod risks;
pub mod run_now;
pub mod simulator;
pub mod status;
pub mod time;
pub mod window_links;

pub use badge::{MarkBadge, OutcomeBadge};
pub use cannot_tell::CannotTellNote;
pub use collapsed::CollapsedMisses;
pub use header::Header;
pub use risks::{JobRisks, RisksSoon};
pub use run_now::RunNowBlock;
pub use status::{ErrorPanel, NotFound, set_status};
/// The URLs and labels every view writes the same way (the model's).
pub use sundial_model::links::*;
pub use time::{BriefTime, Sentence, Time, prefs, sentence_text};
pub use window_links::WindowLinks;

/// Text for the inside of `<title>` or `<textarea>`: leptos writes those elements' children
/// unescaped on the server (tachys takes them for raw text), so a job name read from a source
/// could close the element and add markup. Escaped there; in the browser text goes through
/// the DOM, which needs nothing. Every `<title>` goes through it (the formatter of
/// [`crate::App`]'s `<Title>`), as does the simulator's `<textarea>`.
pub fn raw_text_child(s: String) -> String {
    #[cfg(feature = "ssr")]
    let s = simulator::render::escape(&s);
    s
}

/// A link to [`api_href`]: the page's data as JSON.
#[leptos::component]
pub fn JsonLink(href: String) -> impl leptos::IntoView {
    use leptos::prelude::*;
    view! { <a class="json-link" href=href rel="alternate" type="application/json" data-testid="json-link" title="This page's data from the JSON API">"JSON"</a> }
}
