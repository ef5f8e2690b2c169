//! The instance timeline: every job of an instance on one time axis.
//!
//! Two halves. The *view* half ([`ViewWindow`], [`Bounds`], zoom and pan, [`timeline_href`])
//! is plain arithmetic on epoch milliseconds, shared by the server (the page's zoom and pan
//! links) and the browser (the island that zooms and pans without a request). The *layout*
//! half (server only) turns an engine report into rows of items to draw: expected
//! occurrences and runs, merged into stretches where they would be closer than a few pixels,
//! runs that overlap another job's run flagged, the instance's concurrency as steps, zombie
//! spans and scheduler restarts as bands across every row, the time axis' ticks.
use super::{InstanceHead, Mark, RunKind, Tick, TimePoint};
use crate::engine::RunOutcome;
use serde::{Deserialize, Serialize};

const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;
/// A day, in milliseconds.
pub const DAY_MS: i64 = 24 * HOUR_MS;

/// The narrowest view: one hour.
pub const MIN_SPAN_MS: i64 = HOUR_MS;
/// The widest view: 30 days.
pub const MAX_SPAN_MS: i64 = 30 * DAY_MS;
/// The default view: the last 24 hours and the next 6 around the instance's now.
pub const DEFAULT_PAST_MS: i64 = 24 * HOUR_MS;
pub const DEFAULT_FUTURE_MS: i64 = 6 * HOUR_MS;
/// How far ahead of now the timeline forecasts.
pub const FUTURE_MS: i64 = 7 * DAY_MS;
/// The plot width (CSS pixels) the server lays items out for: items closer than
/// [`MERGE_PX`] of it are drawn as one stretch.
pub const NOMINAL_PX: i64 = 1200;
pub const MERGE_PX: i64 = 6;
/// Runs of two jobs sharing at least this long are outlined as overlapping.
pub const OVERLAP_MIN_MS: i64 = MINUTE_MS;
/// One zoom step (a key press, a button): the span shrinks or grows by this factor.
pub const ZOOM_STEP: f64 = 1.5;
/// One pan step: this fraction of the span.
pub const PAN_STEP: f64 = 0.25;
/// The spans the page offers as presets, with their labels.
pub const PRESETS: [(i64, &str); 5] = [
    (HOUR_MS, "1 h"),
    (6 * HOUR_MS, "6 h"),
    (DAY_MS + 6 * HOUR_MS, "30 h"),
    (7 * DAY_MS, "7 d"),
    (MAX_SPAN_MS, "30 d"),
];

/// The stretch of time the view can show: what the last read covers (30 days before its
/// now) and the forecast ahead of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    pub min: i64,
    pub max: i64,
}

/// What the timeline shows: `[start, end)` in epoch milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewWindow {
    pub start: i64,
    pub end: i64,
}

impl ViewWindow {
    pub fn span(self) -> i64 {
        self.end - self.start
    }

    /// The default view around `now`: the last 24 hours and the next 6, inside `b`.
    pub fn around(now: i64, b: Bounds) -> Self {
        ViewWindow { start: now - DEFAULT_PAST_MS, end: now + DEFAULT_FUTURE_MS }.clamp(b)
    }

    /// The view made valid: its span between [`MIN_SPAN_MS`] and [`MAX_SPAN_MS`] (and no
    /// wider than `b`), kept about its middle, then moved inside `b`.
    pub fn clamp(self, b: Bounds) -> Self {
        let room = (b.max - b.min).max(0);
        let span = self.span().clamp(MIN_SPAN_MS, MAX_SPAN_MS).min(room);
        let mid = self.start / 2 + self.end / 2;
        let start = (mid - span / 2).min(b.max - span).max(b.min);
        ViewWindow { start, end: start + span }
    }

    /// Zoom by `factor` (below 1: in) about `anchor`, a fraction of the view (0: its start,
    /// 1: its end) that stays where it is.
    pub fn zoom(self, factor: f64, anchor: f64, b: Bounds) -> Self {
        let anchor = if anchor.is_finite() { anchor.clamp(0.0, 1.0) } else { 0.5 };
        let factor = if factor.is_finite() && factor > 0.0 { factor } else { 1.0 };
        let span = self.span() as f64;
        let at = self.start as f64 + anchor * span;
        let room = (b.max - b.min).max(0);
        let new_span = (span * factor).clamp(MIN_SPAN_MS.min(room) as f64, MAX_SPAN_MS.min(room) as f64);
        let start = (at - anchor * new_span).round() as i64;
        let v = ViewWindow { start, end: start + new_span.round() as i64 };
        // Keep the anchor put when the bounds allow it: clamp moves, it does not re-center.
        let span = v.span().min((b.max - b.min).max(0));
        let start = v.start.min(b.max - span).max(b.min);
        ViewWindow { start, end: start + span }
    }

    /// Move by `frac` of the span (negative: earlier), stopping at the bounds.
    pub fn pan(self, frac: f64, b: Bounds) -> Self {
        let frac = if frac.is_finite() { frac } else { 0.0 };
        self.shift((self.span() as f64 * frac).round() as i64, b)
    }

    /// Move by `ms`, stopping at the bounds.
    pub fn shift(self, ms: i64, b: Bounds) -> Self {
        let span = self.span();
        let start = (self.start.saturating_add(ms)).min(b.max - span).max(b.min);
        ViewWindow { start, end: start + span }
    }

    /// The same middle, another span.
    pub fn with_span(self, span: i64, b: Bounds) -> Self {
        let mid = self.start / 2 + self.end / 2;
        ViewWindow { start: mid - span / 2, end: mid - span / 2 + span }.clamp(b)
    }

    /// Another span for the page's buttons ("6 h", …): with `now` in view, now stays where it
    /// is on screen (from the default view, "6 h" shows the hours up to now and a little after,
    /// not the evening before); else the same middle.
    pub fn with_span_at(self, span: i64, now: i64, b: Bounds) -> Self {
        if !(self.start..=self.end).contains(&now) || self.span() <= 0 {
            return self.with_span(span, b);
        }
        let span = span.clamp(MIN_SPAN_MS, MAX_SPAN_MS).min((b.max - b.min).max(0));
        let ahead = ((self.end - now) as i128 * span as i128 / self.span() as i128) as i64;
        ViewWindow { start: now + ahead - span, end: now + ahead }.shift(0, b)
    }

    /// Zoom by `factor` for the page's buttons: about `now` when it is in view (it stays in
    /// view), else about the middle.
    pub fn zoom_at(self, factor: f64, now: i64, b: Bounds) -> Self {
        let anchor = if (self.start..=self.end).contains(&now) {
            (now - self.start) as f64 / self.span().max(1) as f64
        } else {
            0.5
        };
        self.zoom(factor, anchor, b)
    }

    /// What the server draws for this view: the view and half a view either side (so a pan
    /// shows drawn items at once), inside `b`.
    pub fn drawn(self, b: Bounds) -> Self {
        let half = self.span() / 2;
        ViewWindow { start: (self.start - half).max(b.min), end: (self.end + half).min(b.max) }
    }

    /// Items closer than this (milliseconds) are drawn as one stretch at this zoom.
    pub fn merge_ms(self) -> i64 {
        (self.span() * MERGE_PX / NOMINAL_PX).max(1)
    }
}

/// `2026-11-22T12:00:00Z`: how the timeline's URL writes an instant.
pub fn url_instant(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// The page's URL for a view: `/timeline?from=…&to=…&instance=…`. The URL is the state: a
/// reload or a shared link shows the same view.
pub fn timeline_href(instance: Option<&str>, v: ViewWindow) -> String {
    format!(
        "/timeline?from={}&to={}{}",
        url_instant(v.start),
        url_instant(v.end),
        crate::links::instance_query(instance)
    )
}

/// The instance timeline opened at a moment (`at`, an instant): six hours from an hour before
/// it, every job of the instance on one axis. Instance-wide evidence (a zombie, a stopped
/// scheduler) links here, at the span's start.
pub fn instance_at_href(instance: &str, at: chrono::DateTime<chrono::Utc>) -> String {
    let ms = at.timestamp_millis();
    let hour = 3_600_000;
    timeline_href(Some(instance), ViewWindow { start: ms.saturating_sub(hour), end: ms.saturating_add(5 * hour) })
}

/// Parse the URL's `from` and `to` into a view inside `b`; absent ones take the default
/// view's. A span outside one hour to 30 days, or a view outside what was read, is made valid
/// (the nearest valid view); an unreadable instant, or `to` not after `from`, is an error that
/// names the parameter.
pub fn parse_view(from: Option<&str>, to: Option<&str>, now: i64, b: Bounds) -> Result<ViewWindow, super::ApiError> {
    let instant = |name: &str, raw: Option<&str>| -> Result<Option<i64>, super::ApiError> {
        match raw.map(str::trim).filter(|s| !s.is_empty()) {
            None => Ok(None),
            Some(s) => chrono::DateTime::parse_from_rfc3339(s).map(|t| Some(t.timestamp_millis())).map_err(|_| {
                super::ApiError::BadRequest(format!(
                    "{name} must be an RFC 3339 instant such as 2026-11-22T12:00:00Z (got {s:?})"
                ))
            }),
        }
    };
    let default = ViewWindow::around(now, b);
    let v = match (instant("from", from)?, instant("to", to)?) {
        (None, None) => default,
        (Some(f), None) => ViewWindow { start: f, end: f.saturating_add(default.span()) },
        (None, Some(t)) => ViewWindow { start: t.saturating_sub(default.span()), end: t },
        (Some(f), Some(t)) if t <= f => {
            return Err(super::ApiError::BadRequest(format!(
                "to must be after from (from={}, to={})",
                url_instant(f),
                url_instant(t)
            )));
        }
        (Some(f), Some(t)) => ViewWindow { start: f, end: t },
    };
    Ok(v.clamp(b))
}

/// What one drawn item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum ItemKind {
    /// Expected occurrences, with what reconciliation said of them.
    Occurrence { mark: Mark },
    /// Runs, with how they ended and how they relate to the schedule.
    Run { outcome: RunOutcome, kind: RunKind },
}

impl ItemKind {
    /// Routine items (on time, upcoming, succeeded scheduled runs) are many and quiet: drawn
    /// together (those overlapping another job's run outlined), without their own link or
    /// tooltip. Every other item is a problem or worth a
    /// look (unknown, manual, failed, in progress…): drawn one by one, linked and titled.
    pub fn routine(self) -> bool {
        match self {
            ItemKind::Occurrence { mark } => matches!(mark, Mark::OnTime | Mark::Upcoming),
            ItemKind::Run { outcome, kind } => outcome == RunOutcome::Succeeded && kind == RunKind::Scheduled,
        }
    }
}

/// One drawn item: an occurrence or a run, or consecutive ones of one kind merged into a
/// stretch (`count` > 1) because they would be closer than a few pixels at this zoom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChartItem {
    pub kind: ItemKind,
    pub start_ms: i64,
    /// The end of the last run (the last occurrence's instant for occurrences).
    pub end_ms: i64,
    pub count: usize,
    /// Some run of it overlaps a run of another job.
    pub overlap: bool,
    /// The first member: where a click on the item leads (the job at that moment).
    pub first: TimePoint,
    /// What the tooltip says; empty for routine items.
    pub title: String,
}

/// One job's row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChartRow {
    pub id: String,
    pub name: String,
    pub enabled: bool,
    /// Occurrences and runs drawn (stretches count their members), and problems among them.
    pub expected: usize,
    pub runs: usize,
    pub missed: usize,
    pub failed: usize,
    /// Occurrences first, then runs; each half in time order.
    pub items: Vec<ChartItem>,
}

/// A stretch across every row (a zombie span).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChartBand {
    pub start: TimePoint,
    pub end: TimePoint,
    pub title: String,
}

impl ChartBand {
    /// A scheduler's stop, not a zombie span (its title says which, from the one finding).
    pub fn is_stop(&self) -> bool {
        self.title.starts_with(STOPPED)
    }
}

/// How a stop's band title starts ([`ChartBand::is_stop`]).
pub const STOPPED: &str = "Stopped: ";

/// The instance's concurrency from `start_ms` on (until the next step): the most runs of
/// any jobs going at once within that stretch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub start_ms: i64,
    pub level: u32,
}

/// What the instance timeline shows: `/timeline?instance=…&from=…&to=…`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceTimelineData {
    /// The instance; its window is the view.
    pub instance: InstanceHead,
    pub view: ViewWindow,
    /// What is drawn: the view and some around it (see [`ViewWindow::drawn`]).
    pub drawn: ViewWindow,
    pub bounds: Bounds,
    pub now_ms: i64,
    pub rows: Vec<ChartRow>,
    pub zombies: Vec<ChartBand>,
    /// Planned maintenance windows (shaded, not a problem).
    #[serde(default)]
    pub planned: Vec<ChartBand>,
    /// The scheduler's (re)starts.
    pub restarts: Vec<TimePoint>,
    /// Over `drawn`, in steps of about a pixel.
    pub concurrency: Vec<Step>,
    /// The most runs going at once in `drawn`.
    pub peak: u32,
    /// Runs in `drawn` that overlap a run of another job (by [`OVERLAP_MIN_MS`] or more).
    pub overlapping: usize,
    pub ticks: Vec<Tick>,
    /// For each tick, the width of the axis (CSS pixels) from which its label is shown: there
    /// the labels shown never overlap (see [`tick_widths`]).
    pub tick_px: Vec<u32>,
    /// The zone the ticks are labelled in.
    pub tick_zone: String,
    /// What comes after now: the next runs and the maintenance planned ahead.
    #[serde(default)]
    pub ahead: super::Ahead,
}

#[cfg(feature = "ssr")]
pub use layout::*;

#[cfg(feature = "ssr")]
mod layout;

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_763_812_800_000; // 2025-11-22T12:00:00Z
    fn bounds() -> Bounds {
        Bounds { min: NOW - 30 * DAY_MS, max: NOW + FUTURE_MS }
    }

    #[test]
    fn the_default_view_is_the_last_day_and_the_next_six_hours() {
        let v = ViewWindow::around(NOW, bounds());
        assert_eq!(v, ViewWindow { start: NOW - 24 * HOUR_MS, end: NOW + 6 * HOUR_MS });
        assert_eq!(parse_view(None, None, NOW, bounds()).unwrap(), v);
    }

    #[test]
    fn the_buttons_keep_now_in_view() {
        let b = bounds();
        let v = ViewWindow::around(NOW, b);
        // "6 h" from the default view: now stays four fifths of the way along, as it was.
        let six = v.with_span_at(6 * HOUR_MS, NOW, b);
        assert_eq!(six, ViewWindow { start: NOW - 24 * HOUR_MS / 5, end: NOW + 6 * HOUR_MS / 5 });
        for span in [HOUR_MS, 6 * HOUR_MS, 7 * DAY_MS, MAX_SPAN_MS] {
            let w = v.with_span_at(span, NOW, b);
            assert!(w.start <= NOW && NOW <= w.end && w.span() == span.min(b.max - b.min), "{span}: {w:?}");
        }
        let zin = v.zoom_at(0.5, NOW, b);
        assert!(zin.start <= NOW && NOW <= zin.end && zin.span() == 15 * HOUR_MS, "{zin:?}");
        // Now out of view: the same middle, as before.
        let past = ViewWindow { start: NOW - 10 * DAY_MS, end: NOW - 9 * DAY_MS };
        assert_eq!(past.with_span_at(HOUR_MS, NOW, b), past.with_span(HOUR_MS, b));
        assert_eq!(past.zoom_at(0.5, NOW, b), past.zoom(0.5, 0.5, b));
    }

    #[test]
    fn zoom_stops_at_one_hour_and_thirty_days_and_keeps_the_anchor() {
        let b = bounds();
        let mut v = ViewWindow::around(NOW, b);
        for _ in 0..40 {
            v = v.zoom(1.0 / ZOOM_STEP, 0.5, b);
        }
        assert_eq!(v.span(), MIN_SPAN_MS, "zooming in stops at one hour");
        for _ in 0..40 {
            v = v.zoom(ZOOM_STEP, 0.5, b);
        }
        assert_eq!(v.span(), MAX_SPAN_MS, "zooming out stops at 30 days");
        assert!(v.start >= b.min && v.end <= b.max, "and stays inside what was read: {v:?}");
        // The instant under the pointer stays under it.
        let v = ViewWindow { start: NOW - 10 * DAY_MS, end: NOW - 8 * DAY_MS };
        let at = v.start + v.span() / 4;
        let z = v.zoom(0.5, 0.25, b);
        assert_eq!(z.span(), DAY_MS);
        assert_eq!(z.start + z.span() / 4, at);
        // Nonsense in, a valid view out.
        assert_eq!(v.zoom(f64::NAN, f64::INFINITY, b).span(), v.span());
        assert_eq!(v.zoom(-3.0, 0.5, b), v);
    }

    #[test]
    fn pan_stops_at_the_bounds() {
        let b = bounds();
        let v = ViewWindow::around(NOW, b);
        let mut p = v;
        for _ in 0..500 {
            p = p.pan(-PAN_STEP, b);
        }
        assert_eq!(p.start, b.min);
        assert_eq!(p.span(), v.span());
        for _ in 0..500 {
            p = p.pan(PAN_STEP, b);
        }
        assert_eq!(p.end, b.max);
        assert_eq!(v.pan(0.5, b).start, v.start + v.span() / 2);
    }

    #[test]
    fn the_url_is_the_state() {
        let b = bounds();
        let v = ViewWindow { start: NOW - 9 * DAY_MS, end: NOW - 7 * DAY_MS };
        let href = timeline_href(Some("SQL PROD"), v);
        assert_eq!(href, "/timeline?from=2025-11-13T12:00:00Z&to=2025-11-15T12:00:00Z&instance=SQL%20PROD");
        assert_eq!(parse_view(Some("2025-11-13T12:00:00Z"), Some("2025-11-15T07:00:00-05:00"), NOW, b).unwrap(), v);
        // Out of range and too narrow or too wide: the nearest valid view.
        let tiny = parse_view(Some("2025-11-13T12:00:00Z"), Some("2025-11-13T12:00:01Z"), NOW, b).unwrap();
        assert_eq!(tiny.span(), MIN_SPAN_MS);
        let wide = parse_view(Some("2020-01-01T00:00:00Z"), Some("2030-01-01T00:00:00Z"), NOW, b).unwrap();
        assert_eq!(wide.span(), MAX_SPAN_MS);
        assert!(wide.start >= b.min && wide.end <= b.max);
        // Only one end: the default span.
        let from = parse_view(Some("2025-11-13T12:00:00Z"), None, NOW, b).unwrap();
        assert_eq!(from.span(), DEFAULT_PAST_MS + DEFAULT_FUTURE_MS);
        // Unreadable: an error naming the parameter.
        let e = parse_view(Some("yesterday"), None, NOW, b).unwrap_err().to_string();
        assert!(e.contains("from must be an RFC 3339 instant") && e.contains("yesterday"), "{e}");
        let e = parse_view(Some("2025-11-13T12:00:00Z"), Some("2025-11-13T11:00:00Z"), NOW, b).unwrap_err();
        assert!(e.to_string().starts_with("to must be after from"), "{e}");
    }

    #[test]
    fn what_is_drawn_is_the_view_and_half_a_view_either_side() {
        let b = bounds();
        let v = ViewWindow { start: NOW - 2 * DAY_MS, end: NOW - DAY_MS };
        assert_eq!(v.drawn(b), ViewWindow { start: NOW - 2 * DAY_MS - DAY_MS / 2, end: NOW - DAY_MS / 2 });
        let edge = ViewWindow { start: b.min, end: b.min + DAY_MS };
        assert_eq!(edge.drawn(b).start, b.min);
        // A week merges items closer than 6 px of 1,200: 50 minutes and 24 seconds.
        assert_eq!(ViewWindow { start: 0, end: 7 * DAY_MS }.merge_ms(), 7 * DAY_MS / 200);
    }
}
