//! What pages read: the model's wire types (re-exported from `sundial-model`, so
//! `crate::api::X` names them) and the `#[server]` functions that fetch them.
//!
//! A page request goes down once: its server function ([`server_fns`]) takes the backend from
//! the request's context ([`context`]), asks the model ([`sundial_model::view`]) for the page's
//! data, and the model asks the backend. Nothing here maps a report: that is the model's. A
//! component's own server functions sit beside it (the simulator's in
//! `components/simulator/server.rs`, the instance chart's in `components/instance_chart.rs`),
//! so this module names no component.

#[cfg(feature = "ssr")]
pub mod context;
pub mod instance_timeline;
pub mod server_fns;

pub use server_fns::*;
pub use sundial_model::*;

/// The model's server-side mapping with this request's context: the model's functions, and
/// those that take their backend from the context under the names pages call.
#[cfg(feature = "ssr")]
pub mod view {
    pub use super::context::{
        backend, changes, deadlines, decorate_here, duration_flags, find_jobs, fleet, report, risks, source_log,
        timeline, timeline_source, triage_here,
    };
    pub use sundial_model::view::*;
}
#[cfg(feature = "ssr")]
pub use view as ssr;
/// Who reads this page: the server puts the [`Principal`] in the request's extensions when
/// sign-in is on. `None`: no sign-in (or outside a request).
pub fn principal() -> Option<Principal> {
    #[cfg(feature = "ssr")]
    {
        leptos::prelude::use_context::<http::request::Parts>().and_then(|p| p.extensions.get::<Principal>().cloned())
    }
    #[cfg(not(feature = "ssr"))]
    {
        None
    }
}

/// Whether this reader may acknowledge and silence problems: an admin, or anyone when
/// Sundial asks for no sign-in.
pub fn may_acknowledge() -> bool {
    principal().is_none_or(|p| p.role == Role::Admin)
}
