//! Sundial's UI and its pure schedule engine.
//!
//! Pages are rendered on the server and sent as complete HTML (leptos *islands*): only the
//! parts marked `#[island]` (the simulator, the auto-refresh, the instance timeline's chart) are compiled to WASM and run in
//! the browser; links and the zone and theme switches are plain HTML.
#![recursion_limit = "256"]

pub mod api;
pub mod components;
/// The schedule engine (its own crate, `sundial-engine`: pure, native and wasm32).
pub use sundial_engine as engine;
pub mod routes;

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::{
    SsrMode, StaticSegment,
    components::{Route, Router, Routes},
    path,
};

/// The HTML document the server renders around [`App`].
///
/// Pages render in [`SsrMode::Async`]: the whole page is rendered before it is sent, so the
/// HTML is complete without JavaScript and a page can set its HTTP status (404, 400, 503).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    content_security_policy();
    let theme = components::time::read_prefs().theme;
    let theme = (theme != components::time::Theme::Auto).then_some(theme.key());
    view! {
        <!DOCTYPE html>
        <html lang="en" data-theme=theme>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light dark"/>
                <script nonce=leptos::nonce::use_nonce()>{components::time::BROWSER_TZ_SCRIPT}</script>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options islands=true/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The page's Content-Security-Policy, as a response header: scripts only from Sundial and
/// inline ones carrying this answer's nonce (leptos's hydration, the zone cookie), WebAssembly
/// compiled, no plugin, no framing, forms and requests only to Sundial. Style attributes are
/// allowed (the charts position with them).
#[cfg(feature = "ssr")]
fn content_security_policy() {
    let (Some(opts), Some(nonce)) = (use_context::<leptos_axum::ResponseOptions>(), leptos::nonce::use_nonce()) else {
        return;
    };
    let policy = format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'"
    );
    if let Ok(v) = http::HeaderValue::from_str(&policy) {
        opts.insert_header(http::header::CONTENT_SECURITY_POLICY, v);
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    components::time::provide_prefs();
    view! {
        <Stylesheet id="leptos" href="/pkg/sundial.css"/>
        // Every page's title (the last <Title> set) passes this formatter: escaped.
        <Title text="Sundial" formatter=components::raw_text_child/>
        // Past the header: each page's own content is its <main id="content">.
        <a class="skip-link" href="#content">"Skip to content"</a>
        <Router>
            <Routes fallback=routes::not_found::NotFoundPage>
                // The landing page: the fleet's state and what is wrong now.
                <Route path=StaticSegment("") view=routes::fleet::FleetPage ssr=SsrMode::Async/>
                <Route path=path!("/jobs") view=routes::jobs::JobsPage ssr=SsrMode::Async/>
                <Route path=path!("/fleet") view=routes::fleet::FleetPage ssr=SsrMode::Async/>
                <Route path=path!("/find") view=routes::find::FindPage ssr=SsrMode::Async/>
                <Route path=path!("/triage") view=routes::triage::TriagePage ssr=SsrMode::Async/>
                <Route path=path!("/log") view=routes::log::LogPage ssr=SsrMode::Async/>
                <Route path=path!("/maintenance") view=routes::maintenance::MaintenancePage ssr=SsrMode::Async/>
                <Route path=path!("/jobs/:job_id") view=routes::timeline::TimelinePage ssr=SsrMode::Async/>
                <Route path=path!("/simulate") view=routes::simulate::SimulatePage ssr=SsrMode::Async/>
                <Route path=path!("/timeline") view=routes::instance_timeline::InstanceTimelinePage ssr=SsrMode::Async/>
                <Route path=path!("/calendar") view=routes::calendar::CalendarPage ssr=SsrMode::Async/>
                <Route path=path!("/signin") view=routes::signin::SignInPage ssr=SsrMode::Async/>
            </Routes>
        </Router>
    }
}

/// The WASM entry point, called before the page's islands hydrate: `<body data-hydrated>`
/// tells tests (and curious DBAs) that the islands are live.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_islands();
    if let Some(body) = document().body() {
        let _ = body.set_attribute("data-hydrated", "true");
    }
}
