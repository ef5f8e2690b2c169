//! The page cache: the reports and snapshots pages ask for, made once per read and window
//! from the held read, and kept across the fleet within a byte budget.
use chrono::Duration as Span;
use std::sync::Arc;
use sundial_engine::Window;
use sundial_engine::fleet::{self, InstanceInput, InstanceReport};
use sundial_engine::maintenance::Maintenance;
use sundial_engine::reconcile::Settings;
use sundial_model::ssr::{ReportError, Snapshot};

use super::Instance;

/// The reports and snapshots pages asked for, across the fleet, kept within a byte budget
/// ([`PAGE_CACHE_BYTES`]; the least recently used go first), each made once however many
/// requests ask at once. Keyed by instance, window length (0: the snapshot) and read.
pub(super) type PageKey = (String, u32, i64, u64);

#[derive(Clone)]
pub(super) enum Kept {
    Report(Arc<InstanceReport>),
    Snapshot(Arc<Snapshot>),
}

/// What the page cache may hold, roughly in bytes (see [`approx_bytes`]).
pub const PAGE_CACHE_BYTES: u64 = 128 << 20;

/// Roughly what a report or snapshot holds in memory: its runs with their words, its
/// occurrences and outcomes.
pub(super) fn approx_bytes(kept: &Kept) -> u32 {
    use sundial_engine::Run;
    let run = |r: &Run| {
        std::mem::size_of::<Run>()
            + r.message.len()
            + r.steps
                .iter()
                .map(|s| std::mem::size_of::<sundial_engine::Step>() + s.message.len() + s.name.len())
                .sum::<usize>()
    };
    let bytes: usize = match kept {
        Kept::Report(r) => r
            .jobs
            .iter()
            .map(|j| {
                j.runs.iter().map(run).sum::<usize>()
                    + (j.forecast.occurrences.len() + j.reconciliation.outcomes.len()) * 96
                    + 1024
            })
            .sum(),
        Kept::Snapshot(s) => {
            s.input.jobs.iter().map(|j| j.runs.iter().map(run).sum::<usize>() + 1024).sum::<usize>()
                + s.events.len() * 256
        }
    };
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

impl Instance {
    /// The report of the last good read over the `days` before its "now", as pages show it
    /// (every run with its words): analysed once per read and window (concurrent requests wait
    /// for that one analysis), on the blocking pool, and kept in the fleet's page cache.
    pub(super) async fn report(&self, days: u32) -> Result<Arc<InstanceReport>, ReportError> {
        let good = self.good().await?;
        let name = self.reader.config.name.clone();
        let key = (name.clone(), days.max(1), good.at.timestamp_micros(), self.book.generation());
        let made = self
            .pages
            .try_get_with(key, async {
                let now = good.read.now;
                let window = Window::ending_at(now, Span::days(i64::from(days)));
                let read = good.shown(self.reader.store.as_ref(), &name, window).await;
                let planned = self.book.for_instance(&name, window);
                let analyse =
                    move || fleet::analyze(&within(&read.input, window, &planned), window, now, &Settings::default());
                match tokio::task::spawn_blocking(analyse).await {
                    Ok(report) => Ok(Kept::Report(Arc::new(report))),
                    Err(e) => {
                        tracing::error!(instance = %name, error = %e, "analysing a read failed");
                        Err(ReportError::Unavailable {
                            instance: name.clone(),
                            reason: "analysing its last read failed (see Sundial's log)".to_owned(),
                            last_good: Some(now),
                        })
                    }
                }
            })
            .await;
        match made {
            Ok(Kept::Report(r)) => Ok(r),
            Ok(Kept::Snapshot(_)) => unreachable!("a window length of at least 1 keys a report"),
            Err(e) => Err((*e).clone()),
        }
    }
}

/// The input's runs that bear on `window`, with the maintenance windows planned over it.
pub(super) fn within(input: &InstanceInput, window: Window, planned: &[Maintenance]) -> InstanceInput {
    let mut input = input.clone();
    input.maintenance = planned.to_vec();
    for job in &mut input.jobs {
        job.runs.retain(|r| window.contains(r.start) || r.end() > window.start);
    }
    input
}
