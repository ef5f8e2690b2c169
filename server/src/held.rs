//! What Sundial holds in memory of an instance between reads: its last good read with the runs
//! in a compact form, their words left in Sundial's store.
//!
//! A read's runs are most of what an instance costs in memory (a month of a busy SQL Agent:
//! 15,000 runs and as many step rows, each with its message). Judging needs of most runs only
//! their start, duration, outcome and trigger; a succeeded run's message and steps are for the
//! pages that show that run, and those read them back from Sundial's store, where every run
//! read is kept (`crate::history`). So once a read is kept, a succeeded run is held as a
//! [`HeldRun`] of 16 bytes; a run that did not succeed (its words are evidence), one still
//! going (its step executing now), the last run of each job (the next read compares and may
//! write it again) and anything the compact form cannot hold exactly keep the whole [`Run`].
//! A read that was not kept (the demo's fixed file, no store, a write the store refused) is
//! held whole.
//!
//! [`HeldRuns::put`] gives the read back with every run, the compact ones without their message
//! and steps: what an incremental source adds its delta to and what triage judges.
use chrono::DateTime;
use sundial_engine::{Run, RunOutcome, Trigger};

use crate::sources::SourceRead;

/// One run, compact: everything judging reads of a succeeded run (it succeeded), nothing it
/// does not; or where its job's whole runs hold it.
#[derive(Clone, Copy, Debug)]
pub struct HeldRun {
    start_us: i64,
    /// Seconds; for a run held whole, its index among its job's whole runs.
    duration_secs: i32,
    /// `Trigger::Schedule(Some(id))`'s id; see `kind`.
    schedule: u16,
    /// 0: `Schedule(None)`, 1: `Schedule(Some(schedule))`, 2: `Manual` (each succeeded);
    /// [`WHOLE`]: held whole.
    kind: u8,
}

/// [`HeldRun::kind`] of a run held whole.
const WHOLE: u8 = u8::MAX;

impl HeldRun {
    /// `run` compact when it succeeded and the compact form holds it exactly.
    fn compact(run: &Run) -> Option<HeldRun> {
        if run.outcome != RunOutcome::Succeeded {
            return None;
        }
        let (kind, schedule) = match run.trigger {
            Trigger::Schedule(None) => (0, 0),
            Trigger::Schedule(Some(id)) => (1, u16::try_from(id).ok()?),
            Trigger::Manual => (2, 0),
            Trigger::Other(_) => return None,
        };
        let start_us = run.start.timestamp_micros();
        // Exactly the instant it was (no finer than microseconds).
        DateTime::from_timestamp_micros(start_us).filter(|t| *t == run.start)?;
        Some(HeldRun { start_us, duration_secs: i32::try_from(run.duration_secs).ok()?, schedule, kind })
    }

    /// The run, the compact one without its message and steps (`whole`: its job's whole runs).
    fn run(&self, whole: &[Run]) -> Run {
        if self.kind == WHOLE
            && let Some(run) = usize::try_from(self.duration_secs).ok().and_then(|k| whole.get(k))
        {
            return run.clone();
        }
        Run {
            start: DateTime::from_timestamp_micros(self.start_us).unwrap_or_default(),
            duration_secs: i64::from(self.duration_secs),
            outcome: RunOutcome::Succeeded,
            trigger: match self.kind {
                1 => Trigger::Schedule(Some(i64::from(self.schedule))),
                2 => Trigger::Manual,
                _ => Trigger::Schedule(None),
            },
            message: String::new(),
            steps: Vec::new(),
        }
    }

    /// Whether the run is held without its words.
    /// When the run ended, in microseconds (saturating, as `Run::end`).
    fn end_us(&self, whole: &[Run]) -> i64 {
        match usize::try_from(self.duration_secs).ok().and_then(|k| whole.get(k)).filter(|_| self.kind == WHOLE) {
            Some(run) => run.end().timestamp_micros(),
            None => self.start_us.saturating_add(i64::from(self.duration_secs.max(0)).saturating_mul(1_000_000)),
        }
    }

    pub fn is_compact(&self) -> bool {
        self.kind != WHOLE
    }
}

/// One job's runs as held: every run in order, and those held whole.
#[derive(Debug, Default)]
struct HeldJob {
    runs: Vec<HeldRun>,
    whole: Vec<Run>,
}

impl HeldJob {
    fn runs(&self) -> impl Iterator<Item = Run> + '_ {
        self.runs.iter().map(|r| r.run(&self.whole))
    }
}

/// The runs of an instance's last good read as held, taken out of the read (whose jobs are then
/// left with no runs: [`HeldRuns::put`] gives them back).
#[derive(Debug, Default)]
pub struct HeldRuns {
    /// Per job of the read's jobs, in order.
    jobs: Vec<HeldJob>,
    /// Every run is held whole (nothing of it is only in the store).
    whole: bool,
}

impl HeldRuns {
    /// Take the runs out of `read`: compact when `kept` (every run it holds is kept in
    /// Sundial's store: those of the jobs whose runs Sundial samples itself, MySQL events'
    /// `unobserved` ones, are not, and stay whole), else whole.
    pub fn take(read: &mut SourceRead, kept: bool) -> HeldRuns {
        let jobs = read
            .input
            .jobs
            .iter_mut()
            .map(|job| {
                let kept = kept && job.unobserved.is_empty();
                let runs = std::mem::take(&mut job.runs);
                let last = runs.len().saturating_sub(1);
                let mut held = HeldJob { runs: Vec::with_capacity(runs.len()), whole: Vec::new() };
                for (k, run) in runs.into_iter().enumerate() {
                    match HeldRun::compact(&run).filter(|_| kept && k != last) {
                        Some(h) => held.runs.push(h),
                        None => {
                            let index = i32::try_from(held.whole.len()).unwrap_or(i32::MAX);
                            held.runs.push(HeldRun {
                                start_us: run.start.timestamp_micros(),
                                duration_secs: index,
                                schedule: 0,
                                kind: WHOLE,
                            });
                            held.whole.push(run);
                        }
                    }
                }
                held.whole.shrink_to_fit();
                held
            })
            .collect();
        HeldRuns { jobs, whole: !kept }
    }

    /// `read` (the one they were taken from) with its runs back, those held compact without
    /// their message and steps.
    pub fn put(&self, read: &SourceRead) -> SourceRead {
        let mut read = read.clone();
        for (job, held) in read.input.jobs.iter_mut().zip(&self.jobs) {
            job.runs = held.runs().collect();
        }
        read
    }

    /// `read` with the runs an analysis of `window` reads: those that started in it or were
    /// still going at its start (as `fleet::within` keeps them), none that started after it.
    pub fn put_within(&self, read: &SourceRead, window: sundial_engine::Window) -> SourceRead {
        let mut read = read.clone();
        let (start, end) = (window.start.timestamp_micros(), window.end.timestamp_micros());
        for (job, held) in read.input.jobs.iter_mut().zip(&self.jobs) {
            // Only the runs kept are made (a few days of a month's read).
            job.runs = held
                .runs
                .iter()
                .filter(|h| h.start_us < end && (h.start_us >= start || h.end_us(&held.whole) > start))
                .map(|h| h.run(&held.whole))
                .collect();
        }
        read
    }

    /// `read` with the runs Sundial's store does not keep (those of jobs with `unobserved`
    /// spans; every run when held whole): what a collector publishes for the other replicas,
    /// who read the rest from the shared store.
    pub fn put_unkept(&self, read: &SourceRead) -> SourceRead {
        let mut read = read.clone();
        for (job, held) in read.input.jobs.iter_mut().zip(&self.jobs) {
            if self.whole || !job.unobserved.is_empty() {
                job.runs = held.runs().collect();
            }
        }
        read
    }

    /// The name of the step that failed job `job`'s (its index in the read) run started at
    /// `start`: a run that did not succeed is held whole, its steps with it.
    pub fn failed_step(&self, job: usize, start: chrono::DateTime<chrono::Utc>) -> Option<String> {
        let run = self.jobs.get(job)?.whole.iter().find(|r| r.start == start)?;
        run.failed_step().map(|s| s.name.clone()).filter(|n| !n.trim().is_empty())
    }

    /// Whether every run is held whole (the read was not kept in Sundial's store).
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// Runs held, and of them held compact.
    pub fn counts(&self) -> (usize, usize) {
        let all = self.jobs.iter().map(|j| j.runs.len()).sum();
        let compact = self.jobs.iter().flat_map(|j| &j.runs).filter(|r| r.is_compact()).count();
        (all, compact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};
    use sundial_engine::Step;
    use sundial_engine::fleet::{InstanceInput, JobInput};

    fn run(min: i64, outcome: RunOutcome, trigger: Trigger) -> Run {
        Run {
            start: Utc.with_ymd_and_hms(2026, 11, 20, 0, 0, 0).unwrap() + chrono::Duration::minutes(min),
            duration_secs: 61,
            outcome,
            trigger,
            message: format!("The job ran at minute {min}."),
            steps: vec![Step {
                id: 1,
                name: "Load".into(),
                message: "Executed as user: etl.".into(),
                ..Step::default()
            }],
        }
    }

    fn read(runs: Vec<Run>) -> SourceRead {
        let job = JobInput {
            id: "j".into(),
            name: "Job".into(),
            category: String::new(),
            owner: None,
            enabled: true,
            command: None,
            schedules: Vec::new(),
            runs,
            history_horizon: None,
            source_horizon: None,
            unobserved: Vec::new(),
            diagnostics: Vec::new(),
            earlier: Vec::new(),
            modified: None,
        };
        let input = InstanceInput {
            name: "i".into(),
            tz: chrono_tz::UTC.into(),
            jobs: vec![job],
            agent_starts: Vec::new(),
            maintenance: Vec::new(),
            scheduler_stopped: false,
        };
        SourceRead::new(input, Vec::new(), Utc.with_ymd_and_hms(2026, 11, 21, 0, 0, 0).unwrap())
    }

    #[test]
    fn a_succeeded_run_is_held_without_its_words_and_everything_judging_reads_is_kept() {
        let runs = vec![
            run(0, RunOutcome::Succeeded, Trigger::Schedule(Some(7))),
            run(10, RunOutcome::Succeeded, Trigger::Manual),
            run(20, RunOutcome::Failed, Trigger::Schedule(Some(7))),
            run(30, RunOutcome::Succeeded, Trigger::Other("alert".into())),
            run(40, RunOutcome::InProgress, Trigger::Schedule(None)),
            run(50, RunOutcome::Succeeded, Trigger::Schedule(Some(7))),
        ];
        let mut taken = read(runs.clone());
        let held = HeldRuns::take(&mut taken, true);
        assert!(taken.input.jobs[0].runs.is_empty());
        assert_eq!(held.counts(), (6, 2), "the two plain successes before the last run");
        let back = held.put(&taken).input.jobs.remove(0).runs;
        for (k, (was, now)) in runs.iter().zip(&back).enumerate() {
            assert_eq!(
                (was.start, was.duration_secs, was.outcome, &was.trigger),
                (now.start, now.duration_secs, now.outcome, &now.trigger),
                "run {k}"
            );
        }
        assert!(back[0].message.is_empty() && back[0].steps.is_empty(), "a success's words are in the store");
        assert_eq!(&back[2..], &runs[2..], "failed, other-triggered, going and the last run whole");
        let mut taken = read(runs.clone());
        assert_eq!(HeldRuns::take(&mut taken, false).put(&taken).input.jobs[0].runs, runs);
        assert_eq!(std::mem::size_of::<HeldRun>(), 16);
    }

    #[test]
    fn a_window_gets_the_runs_that_started_in_it_or_were_going_at_its_start() {
        let mut runs: Vec<Run> =
            (0..40).map(|m| run(m * 7, RunOutcome::Succeeded, Trigger::Schedule(Some(7)))).collect();
        runs[5].outcome = RunOutcome::Failed;
        runs[9].duration_secs = 3_600;
        runs[12].duration_secs = i64::from(i32::MAX) + 1;
        let mut taken = read(runs);
        let held = HeldRuns::take(&mut taken, true);
        let all = held.put(&taken).input.jobs.remove(0).runs;
        let t0 = all[0].start;
        for (from, to) in [(0, 1), (30, 95), (64, 70), (100, 400), (-60, 0), (500, 600)] {
            let window =
                sundial_engine::Window::new(t0 + chrono::Duration::minutes(from), t0 + chrono::Duration::minutes(to));
            let expected: Vec<Run> = all
                .iter()
                .filter(|r| r.start < window.end && (window.contains(r.start) || r.end() > window.start))
                .cloned()
                .collect();
            assert_eq!(held.put_within(&taken, window).input.jobs[0].runs, expected, "{from}..{to} minutes");
        }
    }

    #[test]
    fn what_the_compact_form_cannot_hold_exactly_is_held_whole() {
        let mut long = run(0, RunOutcome::Succeeded, Trigger::Schedule(Some(70_000)));
        long.duration_secs = i64::from(i32::MAX) + 1;
        let mut odd = run(1, RunOutcome::Succeeded, Trigger::Schedule(None));
        odd.start += chrono::Duration::nanoseconds(1);
        let last = run(2, RunOutcome::Succeeded, Trigger::Schedule(None));
        let runs = vec![long, odd, last];
        let mut taken = read(runs.clone());
        let held = HeldRuns::take(&mut taken, true);
        assert_eq!(held.counts(), (3, 0));
        assert_eq!(held.put(&taken).input.jobs[0].runs, runs);
    }
}
