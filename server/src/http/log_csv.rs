//! `GET /log.csv?…`: the scheduler log's CSV export. It takes the log page's query
//! (`instance`, `job`, `kind`, `problems`, `from`, `to`, `days`; also `zone`, the zone of a
//! wall-clock `from`/`to`, which the page's link never needs: it gives them as instants) and
//! answers every line under that filter, all pages of it, newest first, as an attachment.
//!
//! Columns: `time` (RFC 3339 with its offset, in the page's lines' one zone: the instances'
//! own when those listed share one, else UTC, `+00:00`), `instance`, `job` (its name;
//! empty for an instance-wide line), `kind` (`failed`, `missed`, …), `text`, `count` (the
//! events the line stands for: consecutive misses are one line). Quoting is the `csv` crate's
//! (RFC 4180). Names and texts come from the schedulers' tables, which other people write: a
//! cell that a spreadsheet would take for a formula (starting `=`, `+`, `-`, `@`, a tab or a
//! carriage return) is written after a `'`, as OWASP advises, so that opening the export runs
//! nothing. A filter the log cannot use is a 400 naming it, as on the page.
//!
//! The file is streamed, [`CHUNK`] lines at a time, each written as it is sent: a 30-day export
//! of the fleet holds the log's index of lines (a large fleet's: a page of them), never the whole file.
use app::api::ssr::PieceAt;
use app::api::{LogQuery, parse_days};
use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use std::collections::HashMap;

use super::{AppState, Error};

/// The header row.
pub const COLUMNS: [&str; 6] = ["time", "instance", "job", "kind", "text", "count"];

/// Lines written per piece of the answer.
pub const CHUNK: usize = 512;

/// `lines` as CSV, after the header row when `header`.
fn piece(lines: &[app::api::LogLine], header: bool) -> Result<Vec<u8>, String> {
    let mut out = csv::Writer::from_writer(Vec::with_capacity(CHUNK * 160));
    if header {
        out.write_record(COLUMNS).map_err(|e| e.to_string())?;
    }
    for l in lines {
        let count = l.collapsed.count.max(1).to_string();
        let (instance, job, text) = (cell(&l.instance), cell(&l.job_name), cell(&l.text));
        out.write_record([l.at.rfc3339().as_str(), &instance, &job, l.kind.key(), &text, &count])
            .map_err(|e| e.to_string())?;
    }
    out.into_inner().map_err(|e| e.to_string())
}

/// `GET /log.csv`
pub async fn log_csv(
    State(state): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, Error> {
    let days = parse_days(q.get("days").map(String::as_str).filter(|d| !d.is_empty()))?;
    let instance = q.get("instance").map(String::as_str).filter(|i| !i.trim().is_empty());
    let query = LogQuery {
        problems_only: q.get("problems").is_some_and(|v| v == "1"),
        kind: q.get("kind").cloned(),
        job: q.get("job").cloned(),
        from: q.get("from").cloned(),
        to: q.get("to").cloned(),
        zone: q.get("zone").cloned(),
        cursor: None,
        limit: None,
    };
    let log = app::api::ssr::fleet_log(state.backend.as_ref(), instance, days, &query).await?;
    if !log.invalid().is_empty() {
        let what: Vec<&str> = log.invalid().iter().map(|e| e.message.as_str()).collect();
        return Err(Error::BadRequest { what: what.join("; ") });
    }
    let log = std::sync::Arc::new(log);
    // The first piece before the answer starts: a failure there is still a 500, not a cut file.
    let (lines, next) = log.piece(PieceAt::Index(0), CHUNK).await;
    let first = piece(&lines, true).map_err(|e| {
        tracing::error!("writing the log's CSV: {e}");
        Error::Internal
    })?;
    drop(lines);
    let rest = futures_util::stream::unfold(next, move |at| {
        let log = log.clone();
        async move {
            let (lines, then) = log.piece(at?, CHUNK).await;
            let written = piece(&lines, false).map(axum::body::Bytes::from).map_err(|e| {
                tracing::error!("writing the log's CSV: {e}");
                std::io::Error::other("the log's CSV could not be written")
            });
            Some((written, then))
        }
    });
    let body = axum::body::Body::from_stream(
        // Fused: a body (gzip's, say) may ask again after the end, and an ended unfold panics.
        futures_util::stream::once(async move { Ok(axum::body::Bytes::from(first)) }).chain(rest).fuse(),
    );
    let name = match instance {
        Some(i) => format!("sundial-log-{}.csv", file_part(i)),
        None => "sundial-log.csv".to_owned(),
    };
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        body,
    )
        .into_response())
}

/// `text` as a cell no spreadsheet runs as a formula (see the module docs).
fn cell(text: &str) -> std::borrow::Cow<'_, str> {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{text}").into() } else { text.into() }
}

/// An instance name as a safe part of a file name.
fn file_part(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn a_cell_a_spreadsheet_would_run_is_written_as_text() {
        for (given, written) in [
            ("=HYPERLINK(\"http://x\",\"open\")", "'=HYPERLINK(\"http://x\",\"open\")"),
            ("+1", "'+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
        ] {
            assert_eq!(cell(given), written);
        }
        for kept in ["Nightly backup", "ETL - Hourly Orders Sync", "a=b", "", "'quoted"] {
            assert_eq!(cell(kept), kept);
        }
    }
}
