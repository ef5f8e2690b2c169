//! The 1 / 7 / 30-day window selector: router links, so switching is client-side.
use crate::api::WINDOW_DAYS;
use leptos::prelude::*;
use leptos_router::components::A;

/// `href(days)` builds each link (it may read signals: links follow them); `current` is
/// highlighted.
#[component]
pub fn WindowLinks(current: u32, href: impl Fn(u32) -> String + Clone + Send + Sync + 'static) -> impl IntoView {
    view! {
        <nav class="window-links" aria-label="Time window" data-testid="window-links">
            <span class="window-label">"Window"</span>
            {WINDOW_DAYS
                .iter()
                .map(|d| {
                    let label = if *d == 1 { "1 day".to_string() } else { format!("{d} days") };
                    let class = if *d == current { "window-link active" } else { "window-link" };
                    let href = href.clone();
                    let d = *d;
                    view! {
                        <A href=move || href(d) attr:class=class attr:data-days=d attr:data-testid="window-link">
                            {label}
                        </A>
                    }
                })
                .collect_view()}
        </nav>
    }
}
