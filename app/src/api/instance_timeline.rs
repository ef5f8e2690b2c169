//! The instance timeline's data: the model's ([`sundial_model::instance_timeline`]), and the
//! server function a tap on a routine item asks.
pub use sundial_model::instance_timeline::*;

/// What a tap on a routine item of the instance timeline shows (they are drawn together,
/// without tooltips of their own): the run (`run`) or expected run of `job` nearest `at`
/// (epoch ms) within `tol` ms, as its tooltip would say it; empty when there is none.
#[leptos::server(prefix = "/api/fn", endpoint = "instance_timeline_detail")]
pub async fn instance_timeline_detail(
    instance: Option<String>,
    job: String,
    at: i64,
    tol: i64,
    run: bool,
) -> Result<String, crate::api::ApiError> {
    let report = crate::api::context::timeline_source(instance.as_deref()).await?;
    Ok(detail(&report, &job, at, tol.clamp(0, DAY_MS), run).unwrap_or_default())
}
