//! The auto-refresh island: reloads the page on the instance's poll interval, so a page left
//! open on a wall screen keeps up with the fleet. A hidden tab waits until it is shown again.
use leptos::prelude::*;

/// Renders nothing; in the browser, reloads the page every `secs` seconds (at least 5).
#[island]
pub fn AutoRefresh(secs: u64) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    {
        let due = std::time::Duration::from_secs(secs.max(5));
        set_timeout(reload_when_visible, due);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = secs;
}

#[cfg(feature = "hydrate")]
fn reload_when_visible() {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    let doc = document();
    if doc.visibility_state() == web_sys::VisibilityState::Visible {
        let _ = window().location().reload();
        return;
    }
    let once = Closure::once_into_js(reload_when_visible);
    let opts = web_sys::AddEventListenerOptions::new();
    opts.set_once(true);
    let _ = doc.add_event_listener_with_callback_and_add_event_listener_options(
        "visibilitychange",
        once.unchecked_ref(),
        &opts,
    );
}
