//! Sundial's model between the engine and the pages: what a page or the JSON API receives, and
//! how it is made from the engine's reports.
//!
//! Wire types are small and view-ready: every instant comes as a [`TimePoint`], i.e. epoch
//! milliseconds (for positioning on a time axis) plus the wall-clock text in the instance's
//! time zone (for reading). Pages never format times themselves, so the server render and the
//! hydrated browser agree to the character.
//!
//! Errors are [`ApiError`]s: they say what failed (a bad window, an unknown job, an instance
//! whose source cannot be read) and never carry internals (paths, SQL, connection strings).
//!
//! The crate is split by job: [`wire`] holds the types pages receive, [`triage`] and [`forms`]
//! triage's rows and the forms pages post, [`links`] the URLs and labels every view writes the
//! same way, [`instance_timeline`] the instance timeline's view window (and, on the server, its
//! layout), and `view` (with `ssr`, also reachable as `ssr`) the mapping from engine reports to
//! wire types and the typed [`view::Backend`] the server implements. Without `ssr` the crate is
//! what the browser's islands need: no tz database, no backend.
//!
//! It knows neither leptos's components nor the server's sources: the UI crate (`app`) renders
//! what it gives, the server (`server`) implements its `Backend`.

pub mod forms;
pub mod html;
pub mod instance_timeline;
pub mod links;
pub mod run_now;
pub mod schedulers;
pub mod triage;
#[cfg(feature = "ssr")]
pub mod view;
pub mod wire;

/// The schedule engine (its own crate, `sundial-engine`: pure, native and wasm32).
pub use sundial_engine as engine;

pub use triage::{AckForm, AckInfo, ProblemRow, TriageData, TriageScope};
/// The server-side mapping under its former name: `ssr::…` paths keep working.
#[cfg(feature = "ssr")]
pub use view as ssr;
pub use wire::*;

use serde::{Deserialize, Serialize};
use server_fn::codec::JsonEncoding;
use server_fn::error::{FromServerFnError, ServerFnErrorErr};

/// The windows pages offer, in days.
pub const WINDOW_DAYS: [u32; 3] = [1, 7, 30];
/// The window a page shows when the URL does not say.
pub const DEFAULT_DAYS: u32 = 7;
/// The window every job is judged over, in days: triage's problems and the one duration
/// baseline (p50, p95) that triage, the job page and the API quote, whatever window is shown.
pub const JUDGED_DAYS: u32 = 30;
/// The message for any other window.
pub const DAYS_MESSAGE: &str = "days must be 1, 7 or 30";

/// Check a requested window length.
pub fn check_days(days: u32) -> Result<u32, ApiError> {
    if WINDOW_DAYS.contains(&days) { Ok(days) } else { Err(ApiError::BadRequest(DAYS_MESSAGE.into())) }
}

/// Parse `?days=` as a page or an endpoint receives it: absent means [`DEFAULT_DAYS`];
/// anything but 1, 7 or 30 is a [`ApiError::BadRequest`].
pub fn parse_days(raw: Option<&str>) -> Result<u32, ApiError> {
    match raw {
        None => Ok(DEFAULT_DAYS),
        Some(s) => s.trim().parse::<u32>().map_err(|_| ApiError::BadRequest(DAYS_MESSAGE.into())).and_then(check_days),
    }
}

/// What went wrong answering a page or an endpoint. The texts are meant for users.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ApiError {
    /// The request itself is wrong (e.g. `days must be 1, 7 or 30`).
    #[error("{0}")]
    BadRequest(String),
    /// No such thing (e.g. a job id the instance does not have).
    #[error("{what} not found")]
    NotFound { what: String },
    /// The instance's source could not be read. `reason` is safe to show (it names what
    /// failed and what grant is missing, never a secret); more is in the server's log.
    #[error("instance {instance} is unavailable: {reason}{}", last_good.as_ref().map(|t| format!(" (last good read {t} UTC)")).unwrap_or_default())]
    Unavailable { instance: String, reason: String, last_good: Option<String> },
    /// The request did not reach the server, or its answer could not be read.
    #[error("{0}")]
    Transport(String),
    /// A form was refused: which field and why (a [`forms::Refusal`]'s code, which goes back
    /// to the page, and its sentence). Plain strings: the browser's bundle never decodes the
    /// refusal, it only carries it.
    #[error("{message}")]
    Refused { code: String, message: String },
}

impl ApiError {
    /// The HTTP status this error is answered with.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::BadRequest(_) | ApiError::Refused { .. } => 400,
            ApiError::NotFound { .. } => 404,
            ApiError::Unavailable { .. } => 503,
            ApiError::Transport(_) => 502,
        }
    }
}

impl FromServerFnError for ApiError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            ServerFnErrorErr::Args(_) | ServerFnErrorErr::MissingArg(_) => {
                ApiError::BadRequest("the request's arguments are not valid".into())
            }
            ServerFnErrorErr::Request(_) => ApiError::Transport("the server could not be reached".into()),
            _ => ApiError::Transport("the server's answer could not be read".into()),
        }
    }
}
