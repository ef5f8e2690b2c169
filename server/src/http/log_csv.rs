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
//! A piece is written only when the connection asks for it, and it asks only while less than
//! `serve::WRITE_BUFFER` is waiting to be sent: a reader that stops reading stops the export.
//!
//! An export holds, until its reader has it all or is cut off (`serve::Limits::send_timeout`),
//! the log's index, its gzip encoder's state and a buffer: at most [`MAX_EXPORTS`] are written
//! at once, [`MAX_EXPORTS_PER_CLIENT`] for one address; past that the answer is a 503 or a 429
//! with `Retry-After` ([`Exports`]), whatever other clients do.
use axum::extract::{ConnectInfo, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use sundial_model::ssr::PieceAt;
use sundial_model::{LogQuery, parse_days};

use super::serve::{Full, PerClient, Slot};
use super::{AppState, Error};

/// The header row.
pub const COLUMNS: [&str; 6] = ["time", "instance", "job", "kind", "text", "count"];

/// Lines written per piece of the answer.
pub const CHUNK: usize = 512;

/// Exports written at once, from everyone.
pub const MAX_EXPORTS: usize = 8;

/// Exports written at once for one address (behind a reverse proxy: for everyone).
pub const MAX_EXPORTS_PER_CLIENT: usize = 2;

/// What a refused export is told to wait, in seconds.
const RETRY_AFTER: u32 = 10;

/// The exports being written, counted in all and per client address (a request without one,
/// served in-process, counts as one client).
pub struct Exports {
    all: usize,
    per_client: usize,
    open: Arc<PerClient<Option<IpAddr>>>,
    /// Pieces written since the server started.
    pieces: AtomicUsize,
}

impl Default for Exports {
    fn default() -> Exports {
        Exports::new(MAX_EXPORTS, MAX_EXPORTS_PER_CLIENT)
    }
}

impl Exports {
    /// At most `all` exports at once, `per_client` for one address.
    pub fn new(all: usize, per_client: usize) -> Exports {
        Exports { all, per_client, open: Arc::default(), pieces: AtomicUsize::new(0) }
    }

    /// Pieces of CSV written since the server started (every export's).
    pub fn pieces_written(&self) -> usize {
        self.pieces.load(Ordering::Relaxed)
    }

    /// A place for one more export for `client`, given back when dropped; or the refusal.
    fn start(self: &Arc<Exports>, client: Option<IpAddr>) -> Result<Export, Error> {
        match self.open.take(client, self.per_client, Some(self.all)) {
            Ok(slot) => Ok(Export { exports: self.clone(), _slot: slot }),
            Err(Full::Client) => {
                let what = format!(
                    "this address is downloading {} log exports already, the most allowed at once; try again when one has finished",
                    self.per_client
                );
                Err(Error::TooManyRequests { what, retry_after: RETRY_AFTER })
            }
            Err(Full::All) => {
                let what = "Sundial is writing as many log exports as it allows at once; try again shortly".to_owned();
                Err(Error::Busy { what, retry_after: RETRY_AFTER })
            }
        }
    }
}

/// One export's place, held by its answer's body: given back when the body is sent or dropped.
struct Export {
    exports: Arc<Exports>,
    _slot: Slot<Option<IpAddr>>,
}

impl Export {
    fn wrote_piece(&self) {
        self.exports.pieces.fetch_add(1, Ordering::Relaxed);
    }
}

/// `lines` as CSV, after the header row when `header`.
fn piece(lines: &[sundial_model::LogLine], header: bool) -> Result<Vec<u8>, String> {
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
    peer: Option<axum::Extension<ConnectInfo<SocketAddr>>>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, Error> {
    let export = state.exports.start(peer.map(|p| p.0.0.ip().to_canonical()))?;
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
    let log = sundial_model::ssr::fleet_log(state.backend.as_ref(), instance, days, &query).await?;
    if !log.invalid().is_empty() {
        let what: Vec<&str> = log.invalid().iter().map(|e| e.message.as_str()).collect();
        return Err(Error::BadRequest { what: what.join("; ") });
    }
    let log = Arc::new(log);
    // The first piece before the answer starts: a failure there is still a 500, not a cut file.
    let (lines, next) = log.piece(PieceAt::Index(0), CHUNK).await;
    let first = piece(&lines, true).map_err(|e| {
        tracing::error!("writing the log's CSV: {e}");
        Error::Internal
    })?;
    drop(lines);
    export.wrote_piece();
    let export = Arc::new(export);
    let rest = futures_util::stream::unfold(next, move |at| {
        let (log, export) = (log.clone(), export.clone());
        async move {
            let (lines, then) = log.piece(at?, CHUNK).await;
            export.wrote_piece();
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
