//! The schedule simulator: an island computed in the browser by the engine on every edit,
//! with no request to the server (a zone chosen for the first time fetches that zone's rules,
//! once).
//!
//! - [`model`]: what it computes (next runs, descriptions, diagnostics, the instance replay)
//!   and the setup the server sends.
//! - [`state`]: the page's whole state and every edit to it, as plain data (tested natively).
//! - [`render`]: the result regions as HTML text, the same on the server and in the browser.
//! - [`form`]: the page as the server renders it (SSMS's New Job Schedule dialog for
//!   `sysschedules` rows, a column editor for the other dialects, the row as JSON).
//! - `live` (browser only): listens to the form and writes the state back into it.
//!
//! Why not a reactive leptos view: built in the browser, the same simulator as a tree of
//! signals and views weighed 368 KB of gzipped WASM, against a 300 KB budget for the whole
//! site; the form itself never changes shape, so the server renders it and the browser only
//! moves values.
//!
//! The whole state lives in the URL (`history.replaceState` on every edit), so a link
//! reproduces the view.
pub mod form;
#[cfg(feature = "hydrate")]
mod live;
pub mod model;
pub mod render;
pub mod server;
pub mod state;

use leptos::prelude::*;
use model::SimSetup;

/// The simulator island: the server renders the whole form ([`form::SimulatorForm`]); in the
/// browser the island attaches to it and marks `#sim-root` `data-ready`.
#[island]
pub fn Simulator(setup: SimSetup) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    {
        live::attach(setup);
        view! { <div id="sim-root"></div> }
    }
    // On the server, type-erased: the form's type is deeper than the compiler's default limit.
    #[cfg(not(feature = "hydrate"))]
    view! { <div id="sim-root">{view! { <form::SimulatorForm setup=setup/> }.into_any()}</div> }
}
