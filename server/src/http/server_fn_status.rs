//! The pages' server functions (`POST /api/fn/*`) answer an error with its own status.
//!
//! `server_fn` answers every error of a `#[server]` function 500 (its `error_response`), a
//! request with arguments that do not decode included. The body is the [`ApiError`] as JSON,
//! whose [`ApiError::status`] says what it was: 400 for a wrong request, 404, 503 for an
//! instance that cannot be read. The browser's side decodes any 4xx or 5xx answer alike.
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use leptos::server_fn::error::SERVER_FN_ERROR_HEADER;
use sundial_model::ApiError;

/// An error body is one short JSON value; anything longer is left as it is.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Give a server function's error answer the status of the [`ApiError`] it carries.
pub async fn layer(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    if res.status() != StatusCode::INTERNAL_SERVER_ERROR || !res.headers().contains_key(SERVER_FN_ERROR_HEADER) {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_ERROR_BODY).await {
        Ok(b) => b,
        Err(_) => return Response::from_parts(parts, Body::from("the server function's error could not be read")),
    };
    if let Some(status) =
        serde_json::from_slice::<ApiError>(&bytes).ok().and_then(|e| StatusCode::from_u16(e.status()).ok())
    {
        parts.status = status;
    }
    Response::from_parts(parts, Body::from(bytes))
}
