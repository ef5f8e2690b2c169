//! The JSON API's reports, computed once per read, window and moment and shared by every
//! client asking for the same (a dashboard polling `/jobs` every few seconds costs one
//! analysis per read of the instance, not one per request), off the async workers.
//!
//! An entry belongs to one read of one instance (the snapshot it was built from); when the
//! instance's next read arrives, the entries of the older read are dropped. Requests for the
//! same key that arrive together wait for the one analysis ([`tokio::sync::OnceCell`]).
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use sundial_engine::Window;
use sundial_engine::fleet::InstanceReport;
use sundial_model::ssr::Snapshot;
use tokio::sync::OnceCell;

use super::{build, wire};

/// The most entries kept across the fleet; past it, the oldest reads' entries go first.
const MAX_ENTRIES: usize = 512;

/// A report and, once asked for, its log lines.
pub struct Entry {
    pub report: InstanceReport,
    events: OnceLock<Vec<wire::Event>>,
}

impl Entry {
    /// The report's log lines with the source's own events ([`build::events`]), derived once.
    pub fn events(&self, snapshot: &Snapshot) -> &[wire::Event] {
        self.events.get_or_init(|| build::events(&self.report, &snapshot.events))
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    instance: String,
    /// The read: its moment and the snapshot built from it.
    read: DateTime<Utc>,
    snapshot: usize,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    as_of: DateTime<Utc>,
}

type Slot = Arc<OnceCell<Arc<Entry>>>;

/// See the module's documentation.
#[derive(Default)]
pub struct Memo {
    entries: Mutex<HashMap<Key, Slot>>,
}

/// Why no report could be made (the analysis panicked; nothing about the data is leaked).
#[derive(Debug, thiserror::Error)]
#[error("analysing the read failed")]
pub struct AnalysisFailed;

impl Memo {
    /// The report of `snapshot` (the last read of `instance`) over `window` at `as_of`.
    pub async fn report(
        &self,
        instance: &str,
        snapshot: &Arc<Snapshot>,
        window: Window,
        as_of: DateTime<Utc>,
    ) -> Result<Arc<Entry>, AnalysisFailed> {
        let key = Key {
            instance: instance.to_owned(),
            read: snapshot.now,
            snapshot: Arc::as_ptr(snapshot) as usize,
            from: window.start,
            to: window.end,
            as_of,
        };
        let slot = {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            // An instance's older reads are not asked for again.
            entries.retain(|k, _| k.instance != key.instance || (k.read == key.read && k.snapshot == key.snapshot));
            if entries.len() >= MAX_ENTRIES {
                let oldest = entries.keys().map(|k| k.read).min();
                entries.retain(|k, _| Some(k.read) != oldest);
            }
            entries.entry(key).or_default().clone()
        };
        slot.get_or_try_init(|| async {
            let snapshot = snapshot.clone();
            let report = tokio::task::spawn_blocking(move || build::report(&snapshot, window, as_of))
                .await
                .map_err(|_| AnalysisFailed)?;
            Ok(Arc::new(Entry { report, events: OnceLock::new() }))
        })
        .await
        .cloned()
    }

    /// How many reports are kept (for tests).
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
