//! Half-open spans of instants.
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// A half-open span `[start, end)` of instants. An empty or inverted window holds nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Window {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl Window {
    pub fn new(start: DateTime<Utc>, end: DateTime<Utc>) -> Self {
        Window { start, end }
    }
    /// The window of `length` that ends at `end`.
    pub fn ending_at(end: DateTime<Utc>, length: Duration) -> Self {
        Window { start: end - length, end }
    }
    pub fn contains(&self, t: DateTime<Utc>) -> bool {
        self.start <= t && t < self.end
    }
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
    pub fn duration(&self) -> Duration {
        if self.is_empty() { Duration::zero() } else { self.end - self.start }
    }
}
