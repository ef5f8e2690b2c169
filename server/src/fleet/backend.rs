//! The pages' `Backend` over the fleet: what pages, the API and the metrics ask of it, and
//! the fleet-wide log of a large fleet from each instance's judgment (`JudgedLog`).
use chrono::Duration as Span;
use std::collections::HashMap;
use std::sync::Arc;
use sundial_engine::Window;
use sundial_engine::fleet::{self, InstanceReport};
use sundial_engine::log::{LogEvent, LogTally};
use sundial_engine::reconcile::Settings;
use sundial_model::ssr::figures::JobFigures;
use sundial_model::ssr::{Backend, BoxFuture, ReportError, Snapshot};
use sundial_model::ssr::{InstanceLog, ReportLog};
use sundial_model::triage::{MaintenanceEndForm, MaintenanceForm};
use sundial_model::{AckForm, ApiError, InstanceStatus, TriageData, TriageScope};

use super::cache::{Kept, within};
use super::{FleetBackend, FleetJudgment, GoodRead, Instance, READ_DAYS};

/// The part of a read that falls in `window`: runs outside it are not the window's.
/// An instance's log of one read over one window for the fleet-wide log of a large fleet: the
/// tally of its judgment, and a few days of lines analysed on asking (never before the
/// window's start, as the window's own page analyses them).
struct JudgedLog {
    instance: Arc<Instance>,
    good: Arc<GoodRead>,
    tally: Arc<LogTally>,
    names: HashMap<String, String>,
}

/// How far before and after the days asked for their lines are analysed, at first: a run or a
/// miss there is judged as in the whole log (checked against the tally, else analysed wider).
const LOG_MARGIN_HOURS: i64 = 6;

impl JudgedLog {
    /// Whether `lines` (of the whole days in `span`) are as many, of each job and kind on each
    /// day, as the tally says.
    fn agrees(&self, lines: &[LogEvent], span: Window) -> bool {
        let t = &self.tally;
        let in_span = |day: u32| span.contains(t.day(day).start);
        let derived = sundial_engine::log::tally_lines(t.window, lines);
        // A line before the window would not be counted: it disagrees too.
        derived.cells.iter().map(|c| c.lines as usize).sum::<usize>() == lines.len()
            && derived.counts(|_| true) == t.counts(in_span)
    }
}

impl InstanceLog for JudgedLog {
    fn tally(&self) -> &LogTally {
        &self.tally
    }

    fn tz(&self) -> sundial_engine::Zone {
        self.good.read.input.tz
    }

    fn names(&self) -> &HashMap<String, String> {
        &self.names
    }

    fn lines(&self, span: Window, words: bool) -> BoxFuture<'_, Vec<LogEvent>> {
        Box::pin(async move {
            let judged = self.tally.window;
            let now = self.good.read.now;
            let name = &self.instance.reader.config.name;
            let mut margin = Span::hours(LOG_MARGIN_HOURS);
            loop {
                let analysed = Window {
                    start: (span.start - margin).max(judged.start),
                    end: span.end.checked_add_signed(margin).unwrap_or(span.end).min(judged.end),
                };
                let whole = analysed.start <= judged.start && analysed.end >= judged.end;
                let read = match words {
                    true => self.good.shown_within(self.instance.reader.store.as_ref(), name, analysed).await,
                    false => self.good.runs.put_within(&self.good.read, analysed),
                };
                let planned = self.instance.book.for_instance(name, analysed);
                let derive = move || {
                    let report =
                        fleet::analyze(&within(&read.input, analysed, &planned), analysed, now, &Settings::default());
                    let mut lines = sundial_engine::log::derive(&report, &read.events);
                    lines.retain(|e| span.contains(e.at));
                    lines
                };
                let lines = match tokio::task::spawn_blocking(derive).await {
                    Ok(lines) => lines,
                    Err(e) => {
                        tracing::error!(instance = %name, error = %e, "analysing a read's days for the log failed");
                        return Vec::new();
                    }
                };
                if whole || self.agrees(&lines, span) {
                    return lines;
                }
                tracing::debug!(instance = %name, margin_hours = margin.num_hours(), "the log's days differ from the tally: analysed wider");
                margin = margin * 4;
            }
        })
    }
}

impl FleetBackend {
    /// For a missed or failed run's problem row: the statement that runs its job now, from
    /// the instance's last good read (the job's command, the failed run's step) and its
    /// scheduler; `None` for other problems, or a job or instance no longer read.
    fn run_now(&self, row: &sundial_model::ProblemRow) -> Option<sundial_model::run_now::RunNow> {
        use sundial_engine::triage::ProblemKind;
        let failed = matches!(row.kind, ProblemKind::Failed | ProblemKind::NoSuccess);
        if !failed && row.kind != ProblemKind::Missed {
            return None;
        }
        let job_id = row.job_id.as_deref()?;
        let instance = self.instances.iter().find(|i| i.reader.config.name == row.instance)?;
        let state = instance.state.borrow();
        let good = state.good.as_deref()?;
        let (k, job) = good.read.input.jobs.iter().enumerate().find(|(_, j)| j.id == job_id)?;
        let at = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(row.at.ms)?;
        let step = failed.then(|| good.runs.failed_step(k, at)).flatten();
        let facts = sundial_model::run_now::RunNowJob {
            id: &job.id,
            name: &job.name,
            category: &job.category,
            owner: job.owner.as_deref(),
            command: job.command.as_deref(),
            failed_step: step.as_deref(),
        };
        Some(sundial_model::run_now::run_now(&instance.reader.config.kind.scheduler(), &facts))
    }
}

impl Backend for FleetBackend {
    fn duration_flags(&self) -> sundial_engine::durations::DurationFlags {
        self.triage_settings.durations.clone()
    }

    fn deadlines(&self, instance: &str, (id, job): (&str, &str)) -> Vec<sundial_engine::deadlines::Deadline> {
        let Some(i) = self.find(Some(instance)) else { return Vec::new() };
        let tags = &i.reader.config.tags;
        i.deadlines.iter().filter(|d| d.covers(instance, tags, id, job)).map(|d| d.deadline.clone()).collect()
    }

    fn version(&self) -> Option<u64> {
        // Every attempt (good or failed) counts, every change triage keeps, and every
        // maintenance window added or ended.
        let attempts: u64 = self.instances.iter().map(|i| i.state.borrow().attempts).sum();
        Some(attempts + self.keeper.generation() + self.book.generation())
    }

    fn kept_version(&self) -> u64 {
        // Until every instance is tried and its read judged once, a page rendered before one
        // more is lacks it: never answered once it is (a page at startup, from a part of the
        // fleet, would show a part of its problems).
        let settled = self
            .instances
            .iter()
            .filter(|i| {
                let s = i.state.borrow();
                s.attempts > 0 && (s.good.is_none() || i.latest.lock().unwrap_or_else(|e| e.into_inner()).is_some())
            })
            .count() as u64;
        // A page from other acknowledgements or other maintenance windows is never answered.
        let changes = self.keeper.acks_generation() + self.book.generation();
        (settled << 40) | (changes & ((1 << 40) - 1))
    }

    fn judgment(&self) -> BoxFuture<'_, sundial_model::ssr::Judgment> {
        Box::pin(self.problems())
    }

    fn triage_of(&self, fleet: &FleetJudgment, scope: TriageScope) -> TriageData {
        let whole = scope.instance.is_none();
        let mut data = self.keeper.data(&fleet.judged, &scope, self.now(), fleet.counts);
        for row in data.problems.iter_mut().chain(data.acknowledged.iter_mut()) {
            row.run_now = self.run_now(row);
        }
        if whole {
            // On a page, the windows in the zone of its problems (one zone per page).
            use sundial_model::triage::{page_zone, window_in};
            let zone = scope.one_zone.then(|| page_zone(fleet.judged.iter().map(|j| j.tz)));
            let windows = self.book.listing(self.now()).into_iter();
            data.maintenance = sundial_model::triage::MaintenanceData {
                windows: windows
                    .map(|w| match zone {
                        Some(z) => window_in(w, z),
                        None => w,
                    })
                    .collect(),
                instances: self.book.instances().to_vec(),
                start_example: sundial_model::forms::start_example(self.now()),
            };
        }
        data
    }

    fn acknowledge(&self, form: AckForm) -> BoxFuture<'_, Result<(), ApiError>> {
        Box::pin(async move {
            let fleet = self.problems_current().await;
            self.keeper.acknowledge(&form, &fleet.judged, self.now()).await
        })
    }

    fn unacknowledge(&self, form: AckForm) -> BoxFuture<'_, Result<(), ApiError>> {
        Box::pin(async move {
            let fleet = self.problems_current().await;
            self.keeper.unacknowledge(&form, &fleet.judged).await
        })
    }

    fn maintenance_add(&self, form: MaintenanceForm) -> BoxFuture<'_, Result<(), ApiError>> {
        Box::pin(async move {
            self.book.add(&form, &form.by, self.now()).await?;
            // Judged again before the page that follows is asked for: it shows the window's
            // effect, never the judgement from before it.
            self.problems_current().await;
            Ok(())
        })
    }

    fn maintenance_end(&self, form: MaintenanceEndForm) -> BoxFuture<'_, Result<(), ApiError>> {
        Box::pin(async move {
            self.book.end(&form, &form.by, self.now()).await?;
            self.problems_current().await;
            Ok(())
        })
    }

    fn risks(&self, instance: Option<&str>, days: u32) -> BoxFuture<'_, sundial_model::RisksData> {
        let instance = instance.map(str::to_owned);
        Box::pin(async move { self.risks_data(instance.as_deref(), days).await })
    }

    fn changes(
        &self,
        instance: Option<&str>,
        job: Option<&str>,
        window: Window,
    ) -> BoxFuture<'_, Vec<(String, sundial_engine::changes::Change)>> {
        let (instance, job) = (instance.map(str::to_owned), job.map(str::to_owned));
        Box::pin(async move {
            let Some(store) = self.store.as_ref() else { return Vec::new() };
            match crate::history::changes_in(store, instance.as_deref(), job.as_deref(), window).await {
                Ok(changes) => changes,
                Err(e) => {
                    tracing::warn!(error = %e, "Sundial's store: the changes of jobs' definitions could not be read");
                    Vec::new()
                }
            }
        })
    }

    fn maintenance_history(&self) -> BoxFuture<'_, sundial_model::triage::MaintenanceData> {
        Box::pin(async move {
            let now = self.now();
            let reach = Window::new(now - Span::days(READ_DAYS), now + Span::days(7));
            let occurrences = self.book.history(reach, now);
            // What each changed: the due runs its span made maintenance, in the reports of
            // the instances it covers (30 days, each report as every page reads it).
            let mut runs = vec![0usize; occurrences.len()];
            for i in self.instances.iter() {
                let name = &i.reader.config.name;
                let tags = self.book.tags_of(name);
                let over: Vec<usize> = (0..occurrences.len())
                    .filter(|&n| {
                        let o = &occurrences[n];
                        o.entry.scope.covers_instance(name, &tags) && o.span.start < now && o.span.end > reach.start
                    })
                    .collect();
                if over.is_empty() {
                    continue;
                }
                let Ok(report) = self.report(Some(name), READ_DAYS as u32).await else { continue };
                for job in &report.jobs {
                    for outcome in &job.reconciliation.outcomes {
                        let sundial_engine::Outcome::Maintenance { window } = outcome else { continue };
                        for &n in &over {
                            let o = &occurrences[n];
                            if o.span == *window && o.covers(name, &tags, (&job.id, &job.name)) {
                                runs[n] += 1;
                            }
                        }
                    }
                }
            }
            sundial_model::triage::MaintenanceData {
                // One to come has changed nothing yet: it says nothing of runs.
                windows: occurrences
                    .iter()
                    .zip(runs)
                    .map(|(o, r)| o.row(now, (o.state(now) != "planned").then_some(r)))
                    .collect(),
                instances: self.book.instances().to_vec(),
                start_example: sundial_model::forms::start_example(now),
            }
        })
    }

    fn source_log(&self, instance: Option<&str>) -> BoxFuture<'_, Vec<LogEvent>> {
        let found = self.find(instance).cloned();
        Box::pin(async move {
            found.and_then(|i| i.state.borrow().good.as_ref().map(|g| g.read.events.clone())).unwrap_or_default()
        })
    }

    fn snapshot(&self, instance: &str) -> BoxFuture<'_, Result<Arc<Snapshot>, ReportError>> {
        let found = self.find(Some(instance)).cloned();
        Box::pin(async move {
            let i = found.ok_or(ReportError::UnknownInstance)?;
            let state = i.settled().await;
            let Some(good) = state.good else {
                let reason = state.error.unwrap_or_else(|| "it has not been read yet".to_owned());
                return Err(ReportError::Unavailable {
                    instance: i.reader.config.name.clone(),
                    reason,
                    last_good: None,
                });
            };
            let name = i.reader.config.name.clone();
            let key = (name.clone(), 0, good.at.timestamp_micros(), i.book.generation());
            let made = i
                .pages
                .get_with(key, async {
                    let covers = Window::ending_at(good.read.now, Span::days(READ_DAYS));
                    let r = good.shown(i.reader.store.as_ref(), &name, covers).await;
                    let mut input = r.input;
                    // The windows planned ahead too: the calendar and the timelines draw the week after now.
                    let ahead = Window::new(covers.start, covers.end + chrono::Duration::days(7));
                    input.maintenance = i.book.for_instance(&name, ahead);
                    let reported_next = r
                        .reported_next
                        .iter()
                        .map(|n| sundial_model::ssr::ReportedNext {
                            job_id: n.job_id.clone(),
                            at: n.at,
                            column: n.column.to_owned(),
                        })
                        .collect();
                    Kept::Snapshot(Arc::new(Snapshot { input, now: r.now, covers, events: r.events, reported_next }))
                })
                .await;
            match made {
                Kept::Snapshot(s) => Ok(s),
                Kept::Report(_) => unreachable!("a window length of 0 keys a snapshot"),
            }
        })
    }

    fn instance_log(&self, instance: &str, days: u32) -> BoxFuture<'_, Result<Arc<dyn InstanceLog>, ReportError>> {
        let found = self.find(Some(instance)).cloned();
        Box::pin(async move {
            let i = found.ok_or(ReportError::UnknownInstance)?;
            // The tally of the read whose lines are derived: a read that arrives meanwhile
            // is judged and taken instead.
            for _ in 0..3 {
                let good = i.good().await?;
                let Some(judgment) = i.judgment(None, &self.triage_settings).await else { break };
                let Some(tally) = judgment.tallies.iter().find(|t| t.0 == days).map(|t| t.1.clone()) else { break };
                if judgment.at == good.at {
                    let names = good.read.input.jobs.iter().map(|j| (j.id.clone(), j.name.clone())).collect();
                    return Ok(Arc::new(JudgedLog { instance: i.clone(), good, tally, names }) as Arc<dyn InstanceLog>);
                }
            }
            let report = i.report(days).await?;
            let events = i.good().await.map(|g| g.read.events.clone()).unwrap_or_default();
            Ok(Arc::new(ReportLog::new(&report, &events)) as Arc<dyn InstanceLog>)
        })
    }

    fn figures(&self, instance: &str) -> BoxFuture<'_, Option<Arc<Vec<JobFigures>>>> {
        let found = self.find(Some(instance)).cloned();
        Box::pin(async move {
            let i = found?;
            i.settled().await;
            Some(i.judgment(None, &self.triage_settings).await?.figures.clone())
        })
    }

    fn instances(&self) -> BoxFuture<'_, Vec<InstanceStatus>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(self.instances.len());
            for i in &self.instances {
                let state = i.state.borrow().clone();
                out.push(i.status(&state));
            }
            out
        })
    }

    fn report(&self, instance: Option<&str>, days: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, ReportError>> {
        let found = self.find(instance).cloned();
        Box::pin(async move { found.ok_or(ReportError::UnknownInstance)?.report(days).await })
    }
}
