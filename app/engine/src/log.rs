//! The scheduler log: what happened on an instance, one line per event, newest first.
//!
//! Two kinds of line meet here. A source that keeps a log of its own (Primentra's
//! `SchedulerLog`) gives its events, mapped onto [`LogKind`]; for every other source the log
//! is derived from the runs ([`derive`]). Sundial's own findings (missed, late, skipped
//! occurrences; zombie spans; Agent restarts) are always derived, whatever the source.
use super::fleet::InstanceReport;
use super::reconcile::{MissCause, Outcome};
use super::{RunOutcome, Window};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The kinds of line, each with its own colour on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum LogKind {
    /// A run started (Primentra: `fired`).
    Started,
    /// A run ended well (`completed`).
    Succeeded,
    /// A run failed (`error`).
    Failed,
    /// A step failed and was retried.
    Retry,
    /// A run was canceled.
    Canceled,
    /// A run is still going.
    Running,
    /// A run started and never finished (crashed).
    Crashed,
    /// A tick was skipped: the previous run was still going (`skipped`: the overlap guard).
    Skipped,
    /// An expected run that never started (Sundial's finding).
    Missed,
    /// A run that started after its grace (Sundial's finding).
    Late,
    /// A stuck run force-released (`zombie`), or a span in which the scheduler started
    /// nothing although runs were due (Sundial's finding).
    Zombie,
    /// The scheduler started (SQL Server Agent: a new session in msdb). Its key stays
    /// `agent-start` (URLs, CSS classes); its words name the instance's own scheduler.
    AgentStart,
}

impl LogKind {
    /// Every kind, in display order.
    pub const ALL: [LogKind; 12] = [
        LogKind::Started,
        LogKind::Succeeded,
        LogKind::Failed,
        LogKind::Retry,
        LogKind::Canceled,
        LogKind::Running,
        LogKind::Crashed,
        LogKind::Skipped,
        LogKind::Missed,
        LogKind::Late,
        LogKind::Zombie,
        LogKind::AgentStart,
    ];
    /// Lower-case key (CSS class, filters).
    pub fn key(self) -> &'static str {
        match self {
            LogKind::Started => "started",
            LogKind::Succeeded => "succeeded",
            LogKind::Failed => "failed",
            LogKind::Retry => "retry",
            LogKind::Canceled => "canceled",
            LogKind::Running => "running",
            LogKind::Crashed => "crashed",
            LogKind::Skipped => "skipped",
            LogKind::Missed => "missed",
            LogKind::Late => "late",
            LogKind::Zombie => "zombie",
            LogKind::AgentStart => "agent-start",
        }
    }
    /// The kind of a [`key`](LogKind::key) (a filter in a URL); `None` for anything else.
    pub fn from_key(key: &str) -> Option<LogKind> {
        LogKind::ALL.into_iter().find(|k| k.key() == key)
    }
    /// What the log's badge says: the key in words, except that a scheduler's start is
    /// "scheduler start", not a key; a page that knows the instance's scheduler names it
    /// instead ("Agent start", "pg_cron start": the app's `Scheduler::log_label`).
    pub fn label(self) -> &'static str {
        match self {
            LogKind::AgentStart => "scheduler start",
            other => other.key(),
        }
    }
    /// Whether a DBA should look at it: problems, and the scheduler's restarts that often
    /// explain them.
    pub fn is_problem(self) -> bool {
        matches!(
            self,
            LogKind::Failed
                | LogKind::Crashed
                | LogKind::Canceled
                | LogKind::Skipped
                | LogKind::Missed
                | LogKind::Late
                | LogKind::Zombie
                | LogKind::AgentStart
        )
    }
    /// Primentra's `SchedulerLog.EventType` onto Sundial's kinds; `None` for a type Primentra
    /// does not write.
    pub fn from_primentra(event_type: &str) -> Option<LogKind> {
        Some(match event_type.trim().to_ascii_lowercase().as_str() {
            "fired" => LogKind::Started,
            "completed" => LogKind::Succeeded,
            "error" => LogKind::Failed,
            "skipped" => LogKind::Skipped,
            "zombie" => LogKind::Zombie,
            _ => return None,
        })
    }
}

/// One line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEvent {
    pub at: DateTime<Utc>,
    /// The job's id; empty for an instance-wide line.
    pub job_id: String,
    pub kind: LogKind,
    pub text: String,
    /// For a line that stands for several consecutive missed occurrences of one job with one
    /// cause: each of them, oldest first (`at` is the newest). Empty for a single event.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<DateTime<Utc>>,
}

impl LogEvent {
    /// How many events the line stands for (a collapsed run of misses counts each).
    pub fn count(&self) -> usize {
        self.members.len().max(1)
    }
}

/// The log of `report`: Sundial's findings for every job, the runs of jobs for which the source
/// gave no events, the source's events, and instance-wide lines; inside the report's window,
/// newest first (ties: instance lines, then by job, then kind).
pub fn derive(report: &InstanceReport, source_events: &[LogEvent]) -> Vec<LogEvent> {
    let window: Window = report.window;
    let mut out: Vec<LogEvent> = source_events.iter().filter(|e| window.contains(e.at)).cloned().collect();
    let logged: std::collections::HashSet<&str> = source_events.iter().map(|e| e.job_id.as_str()).collect();
    for job in &report.jobs {
        if !logged.contains(job.id.as_str()) {
            for run in &job.runs {
                if !window.contains(run.start) {
                    continue;
                }
                let unknown = run.outcome == RunOutcome::Unknown;
                out.push(LogEvent {
                    at: run.start,
                    job_id: job.id.clone(),
                    kind: LogKind::Started,
                    // How it ended, the history cannot tell: the start is the one line.
                    text: if unknown { "how it ended is not known".to_owned() } else { String::new() },
                    members: Vec::new(),
                });
                let end = run.end().min(report.now);
                let (kind, what) = match run.outcome {
                    RunOutcome::Succeeded => (LogKind::Succeeded, "succeeded"),
                    RunOutcome::Failed => (LogKind::Failed, "failed"),
                    RunOutcome::Retry => (LogKind::Retry, "retry"),
                    RunOutcome::Canceled => (LogKind::Canceled, "canceled"),
                    RunOutcome::InProgress => (LogKind::Running, "still running"),
                    RunOutcome::Crashed => (LogKind::Crashed, "crashed: started and never finished"),
                    RunOutcome::Abandoned => (LogKind::Zombie, "abandoned: released by the scheduler"),
                    RunOutcome::Unknown => continue,
                };
                let at = if run.outcome == RunOutcome::InProgress { run.start } else { end };
                let text = if run.message.trim().is_empty() {
                    format!("{what} after {} s", run.duration_secs)
                } else {
                    run.message.trim().to_owned()
                };
                out.push(LogEvent { at, job_id: job.id.clone(), kind, text, members: Vec::new() });
            }
        }
        // Consecutive misses with one cause become one line (a zombie day of an every-minute
        // job is one line of 1,440, not 1,440 lines); anything else between them ends it.
        let mut group: Option<(&MissCause, Vec<DateTime<Utc>>)> = None;
        let flush = |group: &mut Option<(&MissCause, Vec<DateTime<Utc>>)>, out: &mut Vec<LogEvent>| {
            if let Some((cause, members)) = group.take() {
                let text = miss_text(cause);
                let at = *members.last().expect("a group has a member");
                let members = if members.len() > 1 { members } else { Vec::new() };
                out.push(LogEvent { at, job_id: job.id.clone(), kind: LogKind::Missed, text, members });
            }
        };
        for (occ, outcome) in job.forecast.occurrences.iter().zip(&job.reconciliation.outcomes) {
            if !window.contains(occ.at) {
                continue;
            }
            if let Outcome::Missed { cause } = outcome {
                match &mut group {
                    Some((c, members)) if *c == cause => members.push(occ.at),
                    _ => {
                        flush(&mut group, &mut out);
                        group = Some((cause, vec![occ.at]));
                    }
                }
                continue;
            }
            flush(&mut group, &mut out);
            let (kind, text) = match outcome {
                Outcome::Late { delay_secs, .. } => (LogKind::Late, format!("started {delay_secs} s late")),
                Outcome::SkippedRunning { .. } => {
                    (LogKind::Skipped, "skipped: the previous run was still going".to_owned())
                }
                _ => continue,
            };
            out.push(LogEvent { at: occ.at, job_id: job.id.clone(), kind, text, members: Vec::new() });
        }
        flush(&mut group, &mut out);
    }
    for p in &report.context.zombie_periods {
        if window.contains(p.start) {
            out.push(LogEvent {
                at: p.start,
                job_id: String::new(),
                kind: LogKind::Zombie,
                text: format!(
                    "the scheduler started no job until {} although runs were due",
                    p.end.format("%Y-%m-%d %H:%M:%S UTC")
                ),
                members: Vec::new(),
            });
        }
    }
    for s in &report.context.agent_starts {
        if window.contains(*s) {
            out.push(LogEvent {
                at: *s,
                job_id: String::new(),
                kind: LogKind::AgentStart,
                text: "the scheduler started".into(),
                members: Vec::new(),
            });
        }
    }
    out.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.job_id.cmp(&b.job_id)).then_with(|| a.kind.cmp(&b.kind)));
    out
}

/// Why a run was missed, as the log says it.
fn miss_text(cause: &MissCause) -> String {
    match cause {
        MissCause::NoRun => "no run started".to_owned(),
        MissCause::AgentZombie { .. } => "no run started: the scheduler started nothing at all then".to_owned(),
        MissCause::AgentDown { restarted_at } => {
            format!("no run started: the scheduler was down until {}", restarted_at.format("%Y-%m-%d %H:%M:%S UTC"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LogKind;

    #[test]
    fn keys_round_trip_and_labels_are_words() {
        for k in LogKind::ALL {
            assert_eq!(LogKind::from_key(k.key()), Some(k));
            assert!(!k.label().contains('-') && !k.label().contains("agent"), "{k:?}: {}", k.label());
        }
        assert_eq!(LogKind::AgentStart.key(), "agent-start", "the stable machine key");
        assert_eq!(LogKind::AgentStart.label(), "scheduler start");
        assert_eq!(LogKind::from_key("agent start"), None);
    }
}
