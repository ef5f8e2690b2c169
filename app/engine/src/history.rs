//! History Sundial kept: runs a scheduler has since purged (msdb keeps 100 rows per job by
//! default, pg_cron's `job_run_details` is often trimmed), merged back into what a read shows.
//!
//! Sundial's store holds, per job, the runs it has read and the spans in which it read the job's
//! *whole* history (from the source's horizon, or the read's window start when the source kept
//! everything, to the read). [`merge`] adds the kept runs from before the source's own horizon
//! and moves the horizon back to where Sundial's unbroken coverage begins: a missing run there is
//! then a miss, not unknown. Before that, history stays unknown, never missed.
//!
//! Pure: the store's reading and writing is the server's.
use super::fleet::JobInput;
use super::{Run, Window};
use chrono::{DateTime, Utc};

/// The start of Sundial's unbroken coverage reaching `horizon`: the earliest instant `e` such
/// that `[e, horizon)` lies within `spans` (touching spans join); `horizon` when none reaches it.
pub fn covered_from(spans: &[Window], horizon: DateTime<Utc>) -> DateTime<Utc> {
    let mut sorted: Vec<&Window> = spans.iter().filter(|s| !s.is_empty()).collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.end));
    let mut from = horizon;
    // Walk back from the horizon: each span that reaches the covered part extends it.
    loop {
        let before = from;
        for s in &sorted {
            if s.start < from && s.end >= from {
                from = s.start;
            }
        }
        if from == before {
            return from;
        }
    }
}

/// Merge what Sundial kept for `job` into it (see the module docs): runs kept from before the
/// source's horizon that the read does not hold (same start), in start order, and the horizon
/// moved back to where the coverage begins. Returns the source's own horizon when the store
/// extended it (pages show where Sundial's history ends and the scheduler's begins); `None`
/// when the source kept everything or the store covers nothing before it.
pub fn merge(job: &mut JobInput, spans: &[Window], kept: &[Run]) -> Option<DateTime<Utc>> {
    let horizon = job.history_horizon?;
    let from = covered_from(spans, horizon);
    if from >= horizon {
        return None;
    }
    let have: std::collections::HashSet<DateTime<Utc>> = job.runs.iter().map(|r| r.start).collect();
    let back = kept.iter().filter(|r| r.start >= from && r.start < horizon && !have.contains(&r.start));
    job.runs.extend(back.cloned());
    job.runs.sort_by_key(|r| r.start);
    job.history_horizon = Some(from);
    job.source_horizon = Some(horizon);
    Some(horizon)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::{RunOutcome, Trigger};
    use chrono::TimeZone;

    fn t(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap() + chrono::Duration::hours(h as i64)
    }

    fn w(a: u32, b: u32) -> Window {
        Window::new(t(a), t(b))
    }

    fn run(h: u32) -> Run {
        Run {
            start: t(h),
            duration_secs: 60,
            outcome: RunOutcome::Succeeded,
            trigger: Trigger::Schedule(None),
            message: String::new(),
            steps: Vec::new(),
        }
    }

    fn job(runs: &[u32], horizon: Option<u32>) -> JobInput {
        JobInput {
            id: "1".into(),
            name: "backup".into(),
            category: String::new(),
            owner: None,
            enabled: true,
            command: None,
            schedules: Vec::new(),
            runs: runs.iter().map(|h| run(*h)).collect(),
            history_horizon: horizon.map(t),
            source_horizon: None,
            unobserved: Vec::new(),
            diagnostics: Vec::new(),
            earlier: Vec::new(),
            modified: None,
        }
    }

    #[test]
    fn coverage_reaching_the_horizon_joins_touching_spans_and_stops_at_a_gap() {
        assert_eq!(covered_from(&[w(10, 20)], t(15)), t(10));
        assert_eq!(covered_from(&[w(10, 15), w(2, 10)], t(15)), t(2), "touching spans join");
        assert_eq!(covered_from(&[w(10, 15), w(2, 9)], t(15)), t(10), "a gap stops it");
        assert_eq!(covered_from(&[w(16, 20)], t(15)), t(15), "nothing reaches the horizon");
        assert_eq!(covered_from(&[], t(15)), t(15));
    }

    #[test]
    fn kept_runs_come_back_before_the_horizon_once_each() {
        // The source keeps 12h on; Sundial read the whole history from 4h on, and kept 5h..14h.
        let mut j = job(&[12, 13, 14], Some(12));
        let kept: Vec<Run> = [5, 6, 13, 14, 3].iter().map(|h| run(*h)).collect();
        assert_eq!(merge(&mut j, &[w(4, 14)], &kept), Some(t(12)));
        let starts: Vec<_> = j.runs.iter().map(|r| r.start).collect();
        assert_eq!(starts, [t(5), t(6), t(12), t(13), t(14)], "3h is before the coverage; 13h and 14h not twice");
        assert_eq!(j.history_horizon, Some(t(4)));
        assert_eq!(j.source_horizon, Some(t(12)));
    }

    #[test]
    fn a_complete_source_or_no_coverage_changes_nothing() {
        let mut j = job(&[12], None);
        assert_eq!(merge(&mut j, &[w(0, 20)], &[run(5)]), None);
        assert_eq!(j.runs.len(), 1);
        let mut j = job(&[12], Some(12));
        assert_eq!(merge(&mut j, &[w(13, 20)], &[run(5)]), None);
        assert_eq!((j.runs.len(), j.history_horizon), (1, Some(t(12))));
    }
}
