//! HTTP status of server-rendered pages, error panels and the not-found page.
use crate::api::{ApiError, WINDOW_DAYS};
use leptos::prelude::*;
use leptos_router::components::A;

/// Set the HTTP status of the page being rendered on the server (no-op in the browser).
/// Pages render in `SsrMode::Async`, so the status is set before headers go out.
pub fn set_status(code: u16) {
    #[cfg(feature = "ssr")]
    if let (Some(opts), Ok(status)) = (use_context::<leptos_axum::ResponseOptions>(), http::StatusCode::from_u16(code))
    {
        opts.set_status(status);
    }
    #[cfg(not(feature = "ssr"))]
    let _ = code;
}

/// An error in place of a page's content; sets the page's status.
#[component]
pub fn ErrorPanel(err: ApiError, #[prop(optional, into)] base: Option<String>) -> impl IntoView {
    set_status(err.status());
    let (title, hint) = match &err {
        ApiError::BadRequest(_) | ApiError::Refused { .. } => ("Bad request", None),
        ApiError::NotFound { .. } => ("Not found", None),
        ApiError::Unavailable { .. } => (
            "Source unavailable",
            Some(
                "Sundial keeps polling it: the page works again once the source can be read. The fleet page shows every instance's state.",
            ),
        ),
        ApiError::Transport(_) => ("Request failed", Some("Reload the page to try again.")),
    };
    let fix = matches!(err, ApiError::BadRequest(_)).then(|| {
        let base = base.clone().unwrap_or_else(|| "/".into());
        view! {
            <p class="fix">
                "Show "
                {WINDOW_DAYS
                    .iter()
                    .map(|d| {
                        let href = format!("{base}?days={d}");
                        let label = if *d == 1 { "1 day".to_string() } else { format!("{d} days") };
                        view! { <A href=href>{label}</A> " " }
                    })
                    .collect_view()}
            </p>
        }
    });
    view! {
        <section class="error-panel" role="alert" data-testid="error" data-status=err.status()>
            <h1>{title}</h1>
            <p class="error-message">{err.to_string()}</p>
            {hint.map(|h| view! { <p class="hint">{h}</p> })}
            {fix}
            <p>
                <A href="/jobs">"Back to all jobs"</A>
                " · "
                <A href="/fleet">"Fleet"</A>
            </p>
        </section>
    }
}

/// The not-found page (unknown paths); answers 404.
#[component]
pub fn NotFound(#[prop(optional, into)] what: Option<String>) -> impl IntoView {
    set_status(404);
    let what = what.unwrap_or_else(|| "This page does not exist.".into());
    view! {
        <section class="error-panel" role="alert" data-testid="not-found" data-status="404">
            <h1>"Not found"</h1>
            <p class="error-message">{what}</p>
            <p>
                <A href="/jobs">"Back to all jobs"</A>
            </p>
        </section>
    }
}
