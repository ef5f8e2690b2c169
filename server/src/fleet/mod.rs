//! Serving a configured fleet: one poller per instance, each on its own timer and timeout.
//!
//! Every instance is read by its own task, every `poll_interval` (each instance on its own
//! slots of the interval, so the reads spread over it), each read bounded by the instance's
//! `timeout`. With a shared store
//! (PostgreSQL), only the replica holding an instance's lease reads it; the others take in what
//! it published (`crate::replicas`). Pages never touch a
//! source: they analyse the last good read (cached per window until the next read), so any
//! number of browsers cost the source one read per poll. The poller itself analyses the
//! window triage judges right after each read, on the blocking pool (at most all cores but
//! one such analyses at once): no page waits for it, and until it is done pages are served the
//! fleet's last judgement. A read that fails or times out marks the instance unreachable with its error and the
//! time of its last good read, and its pages go on showing that last good read under a banner
//! that says so; the other instances go on being read and served.
use app::api::ssr::{Backend, BoxFuture, ReportError, Snapshot};
use app::api::ssr::{InstanceLog, ReportLog};
use app::api::triage::{MaintenanceEndForm, MaintenanceForm};
use app::api::{AckForm, ApiError, InstanceStatus, TriageData, TriageScope};
use app::engine::Window;
use app::engine::fleet::{self, InstanceInput, InstanceReport};
use app::engine::log::{LogEvent, LogTally};
use app::engine::reconcile::Settings;
use app::engine::triage::{self, ProblemKind, Reading, TriageSettings};
use chrono::{DateTime, Duration as Span, Utc};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Mutex, watch};

use crate::config::FleetConfig;
use crate::maintenance::Book;
use crate::replicas::Replicas;
use crate::sources;
use crate::sources::snapshots::Store;
use crate::triage::{Judged, Keeper};
use app::api::ssr::figures::JobFigures;
use app::engine::maintenance::Maintenance;

mod poll;
mod share;

use poll::Reader;
pub use poll::{GoodRead, OUTAGE_DAYS, PollState};
use share::Followed;

/// Each read covers the longest window pages offer.
const READ_DAYS: i64 = 30;

/// What triage holds of one instance's last good read: the problems its report shows and how
/// many jobs it judged, for the read it came from (`GoodRead::at`). Judged once per read, by the
/// poller, from the runs as held; nothing else of the analysis is kept.
pub struct InstanceJudgment {
    at: DateTime<Utc>,
    /// The maintenance windows' generation it was judged under ([`Book::generation`]).
    maintenance: u64,
    problems: Vec<triage::Problem>,
    jobs: usize,
    /// Each job's figures for `/metrics`.
    figures: Arc<Vec<JobFigures>>,
    /// How many lines of each kind each job has on each day of the log over each window pages
    /// offer ([`app::api::WINDOW_DAYS`]): the fleet-wide log of a large fleet counts and pages
    /// by them.
    tallies: Vec<(u32, Arc<LogTally>)>,
}

/// The reports and snapshots pages asked for, across the fleet, kept within a byte budget
/// ([`PAGE_CACHE_BYTES`]; the least recently used go first), each made once however many
/// requests ask at once. Keyed by instance, window length (0: the snapshot) and read.
type PageKey = (String, u32, i64, u64);

#[derive(Clone)]
enum Kept {
    Report(Arc<InstanceReport>),
    Snapshot(Arc<Snapshot>),
}

/// What the page cache may hold, roughly in bytes (see [`approx_bytes`]).
pub const PAGE_CACHE_BYTES: u64 = 128 << 20;

/// Roughly what a report or snapshot holds in memory: its runs with their words, its
/// occurrences and outcomes.
fn approx_bytes(kept: &Kept) -> u32 {
    use app::engine::Run;
    let run = |r: &Run| {
        std::mem::size_of::<Run>()
            + r.message.len()
            + r.steps
                .iter()
                .map(|s| std::mem::size_of::<app::engine::Step>() + s.message.len() + s.name.len())
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

/// One instance: its reader, its state, its judgment.
struct Instance {
    reader: Reader,
    state: watch::Sender<PollState>,
    /// The last good read's judgment; the lock held while it is being made.
    judgment: Mutex<Option<Arc<InstanceJudgment>>>,
    /// The latest judgment made (of the last good read, or of the one before while the last
    /// is being judged): what pages read, never waiting.
    latest: std::sync::Mutex<Option<Arc<InstanceJudgment>>>,
    /// The fleet's page cache.
    pages: moka::future::Cache<PageKey, Kept>,
    /// With replicas: the last publication taken in or made.
    followed: Mutex<Followed>,
    /// The fleet's maintenance windows.
    book: Arc<Book>,
}

impl Instance {
    /// The report of the last good read over the `days` before its "now", as pages show it
    /// (every run with its words): analysed once per read and window (concurrent requests wait
    /// for that one analysis), on the blocking pool, and kept in the fleet's page cache.
    async fn report(&self, days: u32) -> Result<Arc<InstanceReport>, ReportError> {
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

    /// The judgment of the last good read, made once per read (a page or the poller, whoever
    /// asks first; the poller's queue at `gate`, a page's never does); `None` without a good read.
    async fn judgment(
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
        // Every window the judgment analyses lies within the judged days.
        let planned =
            self.book.for_instance(&name, Window::ending_at(good.read.now, Span::days(i64::from(JUDGED_DAYS))));
        let judge = move || {
            let whole = read.whole();
            let now = whole.now;
            let window = Window::ending_at(now, Span::days(i64::from(JUDGED_DAYS)));
            let report = fleet::analyze(&within(&whole.input, window, &planned), window, now, &Settings::default());
            let problems = triage::report_problems(&name, &report, &whole.notes, &settings);
            let day = Window::ending_at(now, Span::days(1));
            let today = fleet::analyze(&within(&whole.input, day, &planned), day, now, &Settings::default());
            let figures = Arc::new(app::api::ssr::figures::of(&report, &today));
            // Each window's own analysis: a log over fewer days judges its first hours without
            // what came before them, as the page of that window does.
            let tallies = app::api::WINDOW_DAYS
                .iter()
                .map(|&days| {
                    let tally = match days {
                        JUDGED_DAYS => app::engine::log::tally(&report, &whole.events),
                        1 => app::engine::log::tally(&today, &whole.events),
                        days => {
                            let w = Window::ending_at(now, Span::days(i64::from(days)));
                            let r = fleet::analyze(&within(&whole.input, w, &planned), w, now, &Settings::default());
                            app::engine::log::tally(&r, &whole.events)
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

/// The pages' [`Backend`] over a configured fleet (see the module docs).
pub struct FleetBackend {
    instances: Vec<Arc<Instance>>,
    triage_settings: TriageSettings,
    keeper: Keeper,
    /// The fleet's problems, for the reads and the moment they were judged from.
    judged: std::sync::Mutex<Option<(JudgeKey, Arc<FleetProblems>)>>,
    /// Held while the fleet is judged: one judgement at a time.
    judging: Mutex<()>,
    fixed_now: Option<DateTime<Utc>>,
    /// This replica's leases, with a shared store (`None`: this Sundial reads every instance).
    replicas: Option<Arc<Replicas>>,
    /// Sundial's store, when it could be opened.
    store: Option<Store>,
    /// The fleet's maintenance windows.
    book: Arc<Book>,
}

/// What a judgement depends on of one instance: the read its latest judgment is of, its last
/// good read (staleness) and whether its last attempt failed.
fn read_of(i: &Instance, s: &PollState) -> (Option<DateTime<Utc>>, Option<DateTime<Utc>>, bool) {
    let judged = i.latest.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|j| j.at);
    (judged, s.good.as_ref().map(|g| g.at), s.error.is_some())
}

/// What a judgement depends on: each instance's last good read and whether its last attempt
/// failed, and the moment (to the [`JUDGE_EVERY_SECS`]), since reads grow stale.
type JudgeKey = (Vec<(Option<DateTime<Utc>>, Option<DateTime<Utc>>, bool)>, i64, u64);

/// The window triage judges each instance over, in days.
use app::api::JUDGED_DAYS;

/// First reads (each a whole window, the largest a read gets) under way at once, per core.
const FIRST_READS_PER_CORE: usize = 1;

/// How long one judgement of the fleet serves when no read changed.
const JUDGE_EVERY_SECS: i64 = 15;

/// The fleet's problems now (see [`crate::triage`]), ranked worst first.
pub struct FleetProblems {
    pub judged: Vec<Judged>,
    /// Instances configured, instances whose jobs were judged, jobs judged.
    pub counts: (usize, usize, usize),
    pub at: DateTime<Utc>,
    /// The instances whose jobs were judged (read, not stale): a job's problem missing from
    /// `judged` has ended only there.
    pub judged_instances: std::collections::HashSet<String>,
}

impl FleetBackend {
    /// Start one poller per instance (each reads at once, then every `poll_interval`).
    pub async fn start(config: &FleetConfig) -> anyhow::Result<Arc<FleetBackend>> {
        FleetBackend::start_at(config, None).await
    }

    /// [`FleetBackend::start`] with a fixed "now" for every read (`None`: the clock): the
    /// fleet is read and judged as of that moment.
    pub async fn start_at(config: &FleetConfig, now: Option<DateTime<Utc>>) -> anyhow::Result<Arc<FleetBackend>> {
        use anyhow::Context;
        // The store is needed by some kinds; triage keeps acknowledgements in it, and does
        // without (in memory, saying so) when it cannot be opened and no kind needs it.
        let store = match Store::open_at(&config.store).await {
            Ok(store) => Ok(store),
            // Replicas need their shared store to know who reads what: none reads without it.
            Err(e) if config.store.shared() || config.instances.iter().any(|i| sources::needs_store(i.kind)) => {
                return Err(e).with_context(|| format!("opening Sundial's store {}", config.store));
            }
            Err(e) => {
                tracing::warn!(error = %e, "Sundial's store cannot be opened: acknowledgements are kept in memory only");
                Err(format!("Sundial's store cannot be opened ({e}): acknowledgements last until Sundial stops"))
            }
        };
        let keeper = Keeper::open(store.as_ref().map_err(Clone::clone)).await;
        let store = store.ok();
        let book = Arc::new(Book::open(&config.maintenance, &config.instances, store.clone()).await);
        let replicas = store.as_ref().and_then(Replicas::over).map(Arc::new);
        if let Some(r) = &replicas {
            r.set_fleet_size(config.instances.len());
        }
        if let Some(r) = &replicas {
            tracing::info!(replica = r.name(), store = %config.store, "a replica over a shared store: each instance is read by the replica holding its lease");
        }
        let pages = moka::future::Cache::builder()
            .max_capacity(PAGE_CACHE_BYTES)
            .weigher(|_: &PageKey, kept: &Kept| approx_bytes(kept))
            .build();
        let instances: Vec<Arc<Instance>> = config
            .instances
            .iter()
            .map(|c| {
                Arc::new(Instance {
                    reader: Reader::new(c, store.clone(), now, Some(config.history_retention)),
                    state: watch::channel(PollState::default()).0,
                    judgment: Mutex::new(None),
                    latest: std::sync::Mutex::new(None),
                    pages: pages.clone(),
                    followed: Mutex::new(Followed::default()),
                    book: book.clone(),
                })
            })
            .collect();
        // Each instance is read at once, then on its own slots: the k-th of n instances at
        // start + (k + 1)/n of the interval, then every interval after that. A read that ends
        // past its slot waits for the next one rather than reading at once, so the reads keep
        // their places in the interval however long the first ones took (all n start together
        // and queue for the cores): the sources and the pages see a steady trickle, not the
        // first reads' bunching replayed every interval.
        let n = instances.len().max(1) as u32;
        // The analyses pollers start after their reads (CPU only) take at most all cores but
        // one, so pages always have one to be served on.
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let gate = Arc::new(tokio::sync::Semaphore::new(cores.saturating_sub(1).max(1)));
        // First reads (whole windows) at most FIRST_READS_PER_CORE per core at once.
        let first_reads = Arc::new(tokio::sync::Semaphore::new(cores * FIRST_READS_PER_CORE));
        for (k, instance) in instances.iter().enumerate() {
            let instance = instance.clone();
            let every = instance.reader.config.poll_interval.max(Duration::from_millis(1));
            let phase = every / n * (k as u32 + 1);
            let replicas = replicas.clone();
            let gate = gate.clone();
            let first_reads = first_reads.clone();
            let settings = config.triage.clone();
            tokio::spawn(poll::keep_polling(instance, every, phase, replicas, gate, first_reads, settings));
        }
        Ok(Arc::new(FleetBackend {
            instances,
            triage_settings: config.triage.clone(),
            keeper,
            judged: std::sync::Mutex::new(None),
            judging: Mutex::new(()),
            fixed_now: now,
            replicas,
            store,
            book,
        }))
    }

    /// The fleet's "now": the fixed one (`serve --now`), else the clock.
    fn now(&self) -> DateTime<Utc> {
        self.fixed_now.unwrap_or_else(Utc::now)
    }

    /// Every problem of the fleet now, ranked (judged once per change of reads and every
    /// [`JUDGE_EVERY_SECS`], shared by every page, the API, the metrics and the alerts).
    pub async fn problems(&self) -> Arc<FleetProblems> {
        self.judge(false).await
    }

    /// [`FleetBackend::problems`] judged on every read in: waits for an analysis or a
    /// judgement under way (alerts, acknowledgements).
    pub async fn problems_current(&self) -> Arc<FleetProblems> {
        self.judge(true).await
    }

    async fn judge(&self, current: bool) -> Arc<FleetProblems> {
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
        let fleet = Arc::new(FleetProblems { judged, counts, at: clock, judged_instances });
        *self.judged.lock().unwrap_or_else(|e| e.into_inner()) = Some((key, fleet.clone()));
        fleet
    }

    /// This replica's leases, with a shared store (alerts ask whether they are this one's to send).
    pub fn replicas(&self) -> Option<&Replicas> {
        self.replicas.as_deref()
    }

    /// Sundial's store, when it could be opened (sign-in keeps sessions there when replicas
    /// share it).
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// The acknowledgements and episodes (alerts ask whether one holds).
    pub fn keeper(&self) -> &Keeper {
        &self.keeper
    }

    /// How reading `instance` goes, as it changes (tests wait on it for a read).
    pub fn poll_state(&self, instance: &str) -> Option<watch::Receiver<PollState>> {
        self.find(Some(instance)).map(|i| i.state.subscribe())
    }

    /// Once every instance was read once (or its first read timed out).
    pub async fn first_reads(&self) {
        for i in &self.instances {
            i.settled().await;
        }
    }

    /// The runs the last good read of `instance` holds in memory, and how many of them without
    /// their words (`crate::held`).
    pub fn held_runs(&self, instance: &str) -> Option<(usize, usize)> {
        let i = self.find(Some(instance))?;
        i.state.borrow().good.as_ref().map(|g| g.runs.counts())
    }

    fn find(&self, name: Option<&str>) -> Option<&Arc<Instance>> {
        match name {
            None => self.instances.first(),
            Some(n) => self.instances.iter().find(|i| i.reader.config.name == n),
        }
    }
}

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
        let derived = app::engine::log::tally_lines(t.window, lines);
        // A line before the window would not be counted: it disagrees too.
        derived.cells.iter().map(|c| c.lines as usize).sum::<usize>() == lines.len()
            && derived.counts(|_| true) == t.counts(in_span)
    }
}

impl InstanceLog for JudgedLog {
    fn tally(&self) -> &LogTally {
        &self.tally
    }

    fn tz(&self) -> app::engine::Zone {
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
                    let mut lines = app::engine::log::derive(&report, &read.events);
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

/// The input's runs that bear on `window`, with the maintenance windows planned over it.
fn within(input: &InstanceInput, window: Window, planned: &[Maintenance]) -> InstanceInput {
    let mut input = input.clone();
    input.maintenance = planned.to_vec();
    for job in &mut input.jobs {
        job.runs.retain(|r| window.contains(r.start) || r.end() > window.start);
    }
    input
}

impl Backend for FleetBackend {
    fn duration_flags(&self) -> app::engine::durations::DurationFlags {
        self.triage_settings.durations.clone()
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

    fn judgment(&self) -> BoxFuture<'_, app::api::ssr::Judgment> {
        Box::pin(async move { self.problems().await as app::api::ssr::Judgment })
    }

    fn triage_of(&self, judgment: &app::api::ssr::Judgment, scope: TriageScope) -> TriageData {
        match judgment.downcast_ref::<FleetProblems>() {
            Some(fleet) => {
                let whole = scope.instance.is_none();
                let mut data = self.keeper.data(&fleet.judged, &scope, self.now(), fleet.counts);
                if whole {
                    data.maintenance = app::api::triage::MaintenanceData {
                        windows: self.book.listing(self.now()),
                        instances: self.book.instances().to_vec(),
                    };
                }
                data
            }
            None => TriageData::default(),
        }
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

    fn maintenance_history(&self) -> BoxFuture<'_, app::api::triage::MaintenanceData> {
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
                        let app::engine::Outcome::Maintenance { window } = outcome else { continue };
                        for &n in &over {
                            let o = &occurrences[n];
                            if o.span == *window && o.covers(name, &tags, (&job.id, &job.name)) {
                                runs[n] += 1;
                            }
                        }
                    }
                }
            }
            app::api::triage::MaintenanceData {
                windows: occurrences.iter().zip(runs).map(|(o, r)| o.row(now, Some(r))).collect(),
                instances: self.book.instances().to_vec(),
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
                    input.maintenance = i.book.for_instance(&name, covers);
                    Kept::Snapshot(Arc::new(Snapshot { input, now: r.now, covers, events: r.events }))
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

/// `check-config`: read each instance once, as serving would, and say what Sundial sees.
pub async fn probe(config: &FleetConfig) -> Vec<(String, Result<String, String>)> {
    let store = if config.instances.iter().any(|i| sources::needs_store(i.kind)) {
        Store::open_at(&config.store).await.ok()
    } else {
        None
    };
    let mut out = Vec::new();
    for c in &config.instances {
        let result = match Reader::new(c, store.clone(), None, None).read(Utc::now(), None).await {
            Err(e) => Err(e.to_string()),
            Ok(GoodRead { read: r, .. }) => {
                let runs: usize = r.input.jobs.iter().map(|j| j.runs.len()).sum();
                let mut text = format!(
                    "{} jobs, {} runs in the last {READ_DAYS} days, zone {}",
                    r.input.jobs.len(),
                    runs,
                    r.input.tz.name()
                );
                for n in &r.notes {
                    text.push_str(&format!("\n    {:?}: {}", n.severity, n.message));
                }
                Ok(text)
            }
        };
        out.push((c.name.clone(), result));
    }
    out
}
