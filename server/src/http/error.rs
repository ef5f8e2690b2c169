//! The HTTP layer's errors.
//!
//! Each variant's `Display` text is sent to clients, so none of them carries internals: no
//! paths, no SQL, no connection strings. What failed underneath is logged where the error is
//! made, not here.
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sundial_model::ApiError;

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The request is malformed; `what` says which part and what is allowed
    /// (e.g. `days must be 1, 7 or 30`). 400.
    #[error("bad request: {what}")]
    BadRequest { what: String },
    /// The thing asked for does not exist (`what`: e.g. `job`). 404.
    #[error("{what} not found")]
    NotFound { what: String },
    /// The instance's source could not be read (a database down, a grant missing). 503.
    /// `reason` comes from the source's own error, which names what failed and never a secret.
    #[error("instance {instance} is unavailable: {reason}{}", last_good.as_ref().map(|t| format!(" (last good read {t} UTC)")).unwrap_or_default())]
    SourceUnavailable { instance: String, reason: String, last_good: Option<String> },
    /// Nobody signed in, or an API token that is not valid; `what` says which. 401 (with
    /// `WWW-Authenticate: Bearer`).
    #[error("{what}")]
    Unauthorized { what: String },
    /// Signed in, but the role may not do this (`what`: e.g. only an admin may acknowledge). 403.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// This client asks for more at once than one client may (`what` says what, and when to
    /// try again). 429, with `Retry-After`.
    #[error("{what}")]
    TooManyRequests { what: String, retry_after: u32 },
    /// The server is doing as much of this at once as it allows. 503, with `Retry-After`.
    #[error("{what}")]
    Busy { what: String, retry_after: u32 },
    /// Anything else; the cause is in the log. 500.
    #[error("internal error")]
    Internal,
}

impl Error {
    /// The HTTP status the error is answered with.
    pub fn status_code(&self) -> StatusCode {
        match self {
            Error::BadRequest { .. } => StatusCode::BAD_REQUEST,
            Error::NotFound { .. } => StatusCode::NOT_FOUND,
            Error::SourceUnavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Error::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            Error::Forbidden(_) => StatusCode::FORBIDDEN,
            Error::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Error::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Error::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// A stable, machine-readable name of the variant.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::BadRequest { .. } => "bad_request",
            Error::NotFound { .. } => "not_found",
            Error::SourceUnavailable { .. } => "source_unavailable",
            Error::Unauthorized { .. } => "unauthorized",
            Error::Forbidden(_) => "forbidden",
            Error::TooManyRequests { .. } => "too_many_requests",
            Error::Busy { .. } => "busy",
            Error::Internal => "internal",
        }
    }
}

impl From<ApiError> for Error {
    fn from(e: ApiError) -> Self {
        match e {
            ApiError::BadRequest(what) => Error::BadRequest { what },
            ApiError::NotFound { what } => Error::NotFound { what },
            ApiError::Unavailable { instance, reason, last_good } => {
                Error::SourceUnavailable { instance, reason, last_good }
            }
            ApiError::Transport(_) => Error::Internal,
            ApiError::Refused { message, .. } => Error::BadRequest { what: message },
        }
    }
}

/// `{"error": "<Display>", "kind": "<kind>"}` with the variant's status.
impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.to_string(), "kind": self.kind() });
        let mut res = (self.status_code(), Json(body)).into_response();
        match self {
            Error::Unauthorized { .. } => {
                res.headers_mut().insert(
                    axum::http::header::WWW_AUTHENTICATE,
                    axum::http::HeaderValue::from_static("Bearer realm=\"Sundial\""),
                );
            }
            Error::TooManyRequests { retry_after, .. } | Error::Busy { retry_after, .. } => {
                res.headers_mut().insert(axum::http::header::RETRY_AFTER, retry_after.into());
            }
            _ => {}
        }
        res
    }
}
