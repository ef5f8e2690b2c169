//! The 1 / 7 / 30-day window selector: plain links the router takes, so switching is
//! client-side; only the current window is `aria-current`.
use crate::api::WINDOW_DAYS;
use leptos::prelude::*;

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
                    let aria = (*d == current).then_some("page");
                    let href = href.clone();
                    let d = *d;
                    view! {
                        <a href=move || href(d) class=class aria-current=aria data-days=d data-testid="window-link">
                            {label}
                        </a>
                    }
                })
                .collect_view()}
        </nav>
    }
}
