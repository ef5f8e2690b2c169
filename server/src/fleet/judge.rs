//! Judging: each instance's judgment of its last good read (made once per read, by its
//! poller), and the fleet's problems gathered from those judgments (`FleetBackend::problems`).
use chrono::{DateTime, Duration as Span, Utc};
use std::sync::Arc;
use sundial_engine::Window;
use sundial_engine::fleet;
use sundial_engine::log::LogTally;
use sundial_engine::reconcile::Settings;
use sundial_engine::triage::{self, ProblemKind, Reading, TriageSettings};
use sundial_model::ssr::figures::JobFigures;

use super::cache::within;
use super::{FleetBackend, Instance, PollState};

/// What triage holds of one instance's last good read: the problems its report shows and how
/// many jobs it judged, for the read it came from (`GoodRead::at`). Judged once per read, by the
/// poller, from the runs as held; nothing else of the analysis is kept.
pub struct InstanceJudgment {
    pub(super) at: DateTime<Utc>,
    /// The maintenance windows' generation it was judged under ([`Book::generation`](crate::maintenance::Book::generation)).
    maintenance: u64,
    problems: Vec<triage::Problem>,
    jobs: usize,
    /// Each job's figures for `/metrics`.
    pub(super) figures: Arc<Vec<JobFigures>>,
    /// How many lines of each kind each job has on each day of the log over each window pages
    /// offer ([`sundial_model::WINDOW_DAYS`]): the fleet-wide log of a large fleet counts and pages
    /// by them.
    pub(super) tallies: Vec<(u32, Arc<LogTally>)>,
    /// The instance's incidents of the judged 30 days (its scheduler's zombie spans and
    /// stops), newest first: what the fleet table, every page's banner and the API say of it.
    pub(super) incidents: Arc<Vec<sundial_model::Incident>>,
}

impl Instance {
    /// The judgment of the last good read, made once per read (a page or the poller, whoever
    /// asks first; the poller's queue at `gate`, a page's never does); `None` without a good read.
    pub(super) async fn judgment(
        &self,
        gate: Option<&tokio::sync::Semaphore>,
        settings: &TriageSettings,
    ) -> Option<Arc<InstanceJudgment>> {
        let good = self.state.borrow().good.clone()?;
        let generation = self.book.generation();
        let current = |j: &&Arc<InstanceJudgment>| j.at == good.at && j.maintenance == generation;
        if let Some(j) = self.judgment.lock().await.as_ref().filter(current) {
            return Some(j.clone());
        }
        let _permit = match gate {
            Some(gate) => gate.acquire().await.ok(),
            None => None,
        };
        // Holding the lock while judging coalesces concurrent askers.
        let mut judgment = self.judgment.lock().await;
        if let Some(j) = judgment.as_ref().filter(current) {
            return Some(j.clone());
        }
        let name = self.reader.config.name.clone();
        let settings = settings.clone();
        let read = good.clone();
        let deadlines = self.deadlines.clone();
        let tags = self.reader.config.tags.clone();
        // Every window the judgment analyses lies within the judged days.
        let planned =
            self.book.for_instance(&name, Window::ending_at(good.read.now, Span::days(i64::from(JUDGED_DAYS))));
        let judge = move || {
            let whole = read.whole();
            let now = whole.now;
            let window = Window::ending_at(now, Span::days(i64::from(JUDGED_DAYS)));
            let report = fleet::analyze(&within(&whole.input, window, &planned), window, now, &Settings::default());
            let mut problems = triage::report_problems(&name, &report, &whole.notes, &settings);
            problems.extend(deadline_problems(&name, &tags, &deadlines, &report));
            let day = Window::ending_at(now, Span::days(1));
            let today = fleet::analyze(&within(&whole.input, day, &planned), day, now, &Settings::default());
            let figures = Arc::new(sundial_model::ssr::figures::of(&report, &today));
            let incidents = Arc::new(sundial_model::ssr::incidents(&report));
            // Each window's own analysis: a log over fewer days judges its first hours without
            // what came before them, as the page of that window does.
            let tallies = sundial_model::WINDOW_DAYS
                .iter()
                .map(|&days| {
                    let tally = match days {
                        JUDGED_DAYS => sundial_engine::log::tally(&report, &whole.events),
                        1 => sundial_engine::log::tally(&today, &whole.events),
                        days => {
                            let w = Window::ending_at(now, Span::days(i64::from(days)));
                            let r = fleet::analyze(&within(&whole.input, w, &planned), w, now, &Settings::default());
                            sundial_engine::log::tally(&r, &whole.events)
                        }
                    };
                    (days, Arc::new(tally))
                })
                .collect();
            InstanceJudgment {
                at: read.at,
                maintenance: generation,
                problems,
                jobs: report.jobs.len(),
                figures,
                tallies,
                incidents,
            }
        };
        match tokio::task::spawn_blocking(judge).await {
            Ok(j) => {
                let j = Arc::new(j);
                *judgment = Some(j.clone());
                *self.latest.lock().unwrap_or_else(|e| e.into_inner()) = Some(j.clone());
                Some(j)
            }
            Err(e) => {
                tracing::error!(instance = %self.reader.config.name, error = %e, "judging a read failed");
                None
            }
        }
    }
}

/// Each job's `deadline_missed` problem (see [`sundial_engine::deadlines`]): the deadlines that
/// hold for it, judged at the report's now from its runs, with its next run due.
fn deadline_problems(
    instance: &str,
    tags: &std::collections::BTreeMap<String, String>,
    deadlines: &[crate::config::DeadlineConfig],
    report: &fleet::InstanceReport,
) -> Vec<triage::Problem> {
    if deadlines.is_empty() {
        return Vec::new();
    }
    report
        .jobs
        .iter()
        .filter_map(|job| {
            let held = deadlines.iter().filter(|d| d.covers(instance, tags, &job.id, &job.name)).map(|d| &d.deadline);
            sundial_engine::deadlines::problem_of_many(
                instance,
                (&job.id, &job.name),
                held,
                &job.runs,
                job.next_expected.as_ref().map(|o| o.at),
                report.now,
            )
        })
        .collect()
}

/// What a judgement depends on of one instance: the read its latest judgment is of, its last
/// good read (staleness) and whether its last attempt failed.
fn read_of(i: &Instance, s: &PollState) -> (Option<DateTime<Utc>>, Option<DateTime<Utc>>, bool) {
    let judged = i.latest.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|j| j.at);
    (judged, s.good.as_ref().map(|g| g.at), s.error.is_some())
}

/// What a judgement depends on: each instance's last good read and whether its last attempt
/// failed, and the moment (to the [`JUDGE_EVERY_SECS`]), since reads grow stale.
pub(super) type JudgeKey = (Vec<(Option<DateTime<Utc>>, Option<DateTime<Utc>>, bool)>, i64, u64);

/// The window triage judges each instance over, in days.
use sundial_model::JUDGED_DAYS;

/// How long one judgement of the fleet serves when no read changed.
const JUDGE_EVERY_SECS: i64 = 15;

/// The fleet's problems now (see [`crate::triage`]), ranked worst first: the model's
/// [`FleetJudgment`](sundial_model::view::FleetJudgment), which every view reads.
pub use sundial_model::view::FleetJudgment;

impl FleetBackend {
    /// Every problem of the fleet now, ranked (judged once per change of reads and every
    /// [`JUDGE_EVERY_SECS`], shared by every page, the API, the metrics and the alerts).
    pub async fn problems(&self) -> Arc<FleetJudgment> {
        self.judge(false).await
    }

    /// [`FleetBackend::problems`] judged on every read in: waits for an analysis or a
    /// judgement under way (alerts, acknowledgements).
    pub async fn problems_current(&self) -> Arc<FleetJudgment> {
        self.judge(true).await
    }

    async fn judge(&self, current: bool) -> Arc<FleetJudgment> {
        let last = || self.judged.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // The key from each state in place: a request served the last judgement copies nothing.
        let reads = self.instances.iter().map(|i| read_of(i, &i.state.borrow())).collect();
        let key: JudgeKey = (reads, Utc::now().timestamp() / JUDGE_EVERY_SECS, self.book.generation());
        let _turn = match last() {
            Some((k, p)) if k == key => return p,
            Some(_) if current => self.judging.lock().await,
            // While one request judges the fleet again (an instance's judgment came in, or the
            // last judgement aged), requests are served the last judgement: no page waits on a
            // judgement when there is one to show. The next request after it judges what came
            // since. A fleet judgement only gathers each instance's latest judgment (its
            // poller's), never analyses.
            Some((_, p)) => match self.judging.try_lock() {
                Ok(turn) => turn,
                Err(_) => return p,
            },
            None => self.judging.lock().await,
        };
        // What is read may have changed while this request waited for its turn.
        let started = std::time::Instant::now();
        // Replicas share their windows through the store: take in what the others added or ended.
        if self.store.as_ref().is_some_and(|s| s.at().shared()) {
            self.book.refresh().await;
        }
        // Judged as of the fleet's "now" (a fixed one stays put: nothing turns stale under it);
        // judged again at least every JUDGE_EVERY_SECS of the server's clock.
        let clock = self.now();
        let states: Vec<PollState> = self.instances.iter().map(|i| i.state.borrow().clone()).collect();
        let key: JudgeKey = (
            self.instances.iter().zip(&states).map(|(i, s)| read_of(i, s)).collect(),
            Utc::now().timestamp() / JUDGE_EVERY_SECS,
            self.book.generation(),
        );
        if let Some((k, p)) = last()
            && k == key
        {
            return p;
        }
        let mut problems = Vec::new();
        let mut judged_instances = std::collections::HashSet::new();
        let mut jobs = 0;
        for (i, s) in self.instances.iter().zip(&states) {
            let name = &i.reader.config.name;
            let good = s.good.as_deref();
            // Alerts and acknowledgements judge the last read (waiting for its judgment, made
            // here if its poller has not yet); pages the latest judgment there is.
            let judgment = match good {
                Some(_) if current => i.judgment(None, &self.triage_settings).await,
                Some(_) => {
                    let latest = i.latest.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    match latest {
                        // A window added or ended since: judged again at once (no read
                        // needed), so every view agrees with the windows now.
                        Some(j) if j.maintenance == self.book.generation() => Some(j),
                        _ => i.judgment(None, &self.triage_settings).await,
                    }
                }
                None => None,
            };
            let failing = s.error.as_deref().map(|e| {
                let open = s.outages.last().filter(|o| o.1.is_none()).map(|o| o.0);
                (open.or(s.last_attempt).unwrap_or(clock), e)
            });
            // The reading's own problems (unreachable, stale) now; the report's were judged
            // once, from the read, and hold while it is not stale.
            let reading = Reading {
                instance: name,
                report: None,
                notes: good.map(|g| g.read.notes.as_slice()).unwrap_or_default(),
                failing,
                read_at: good.map(|g| g.read.now),
                poll_secs: good.filter(|g| !g.read.frozen).map(|_| i.reader.config.poll_interval.as_secs().max(1)),
            };
            let mut found = triage::instance_problems(&reading, clock, &self.triage_settings);
            if let Some(j) = &judgment
                && !found.iter().any(|p| p.kind == ProblemKind::Stale)
            {
                judged_instances.insert(name.clone());
                jobs += j.jobs;
                found.extend(j.problems.iter().cloned());
            }
            let tz = good.map(|g| g.read.input.tz).unwrap_or(chrono_tz::UTC.into());
            problems.extend(found.into_iter().map(|p| (p, tz)));
        }
        // An instance not tried yet since Sundial started says nothing: none of its problems end.
        let settled: std::collections::HashSet<String> = self
            .instances
            .iter()
            .zip(&states)
            .filter(|(_, s)| s.attempts > 0)
            .map(|(i, _)| i.reader.config.name.clone())
            .collect();
        let mut judged = self.keeper.observe(problems, &judged_instances, &settled, self.now()).await;
        // A problem open inside a maintenance window open now is held: marked, and not alerted
        // until the window ends.
        if let Some(oldest) = judged.iter().map(|j| j.first_seen).min() {
            let holder = self.book.holder(oldest, clock);
            for j in &mut judged {
                let p = &j.problem;
                let job = p.job.as_ref().map(|(id, n)| (id.as_str(), n.as_str()));
                j.maintenance = holder.holding(&p.instance, job, j.first_seen);
            }
        }
        triage::rank_by(&mut judged, |j| (&j.problem, j.problem.since.unwrap_or(j.first_seen)));
        let counts = (self.instances.len(), judged_instances.len(), jobs);
        tracing::debug!(problems = judged.len(), ms = started.elapsed().as_millis() as u64, "fleet judged");
        let fleet = Arc::new(FleetJudgment { judged, counts, at: clock, judged_instances });
        *self.judged.lock().unwrap_or_else(|e| e.into_inner()) = Some((key, fleet.clone()));
        fleet
    }
}
