//! Components shared by pages.
pub mod badge;
pub mod cannot_tell;
pub mod chart;
pub mod collapsed;
pub mod header;
pub mod instance_chart;
pub mod refresh;
pub mod simulator;
pub mod status;
pub mod time;
pub mod window_links;

pub use badge::{MarkBadge, OutcomeBadge, outcome_key, outcome_label};
pub use cannot_tell::CannotTellNote;
pub use collapsed::CollapsedMisses;
pub use header::Header;
pub use status::{ErrorPanel, NotFound, set_status};
pub use time::{Sentence, Time, prefs, sentence_text};
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

/// Percent-encode one URL path segment (job ids are GUIDs, but sources may use anything).
pub fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The link to a job's timeline over a window.
pub fn job_href(instance: Option<&str>, job_id: &str, days: u32) -> String {
    format!("/jobs/{}?days={days}{}", encode_segment(job_id), instance_query(instance))
}

/// The deep link to a job's timeline at a moment (`at`, an instant): the timeline opens on a
/// window holding `at` and marks it. Triage rows, alerts and log lines all link this way.
pub fn job_at_href(instance: Option<&str>, job_id: &str, at: chrono::DateTime<chrono::Utc>) -> String {
    format!(
        "/jobs/{}?at={}{}",
        encode_segment(job_id),
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        instance_query(instance)
    )
}

/// The JSON API's URL for what a page shows: `path` (after `/api/`, `{i}` standing for the
/// instance's encoded name) over the page's window, so a script or a postmortem gets the same
/// data the page was built from.
pub fn api_href(path: &str, head: &crate::api::InstanceHead) -> String {
    let at = |p: &crate::api::TimePoint| {
        chrono::DateTime::from_timestamp_millis(p.ms)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default()
    };
    let path = path.replace("{i}", &encode_segment(&head.name));
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("/api/{path}{sep}from={}&to={}", at(&head.window_start), at(&head.window_end))
}

/// A link to [`api_href`]: the page's data as JSON.
#[leptos::component]
pub fn JsonLink(href: String) -> impl leptos::IntoView {
    use leptos::prelude::*;
    view! { <a class="json-link" href=href rel="alternate" type="application/json" data-testid="json-link" title="This page's data from the JSON API">"JSON"</a> }
}

/// `&instance=NAME` for links of a page opened for a named instance; empty otherwise.
pub fn instance_query(instance: Option<&str>) -> String {
    instance.filter(|i| !i.is_empty()).map(|i| format!("&instance={}", encode_segment(i))).unwrap_or_default()
}
