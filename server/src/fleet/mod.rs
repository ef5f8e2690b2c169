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
use app::api::{AckForm, ApiError, DiagnosticLine, InstanceStatus, SourceState, TriageData, TriageScope};
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

use crate::config::{FleetConfig, InstanceConfig};
use crate::held::HeldRuns;
use crate::maintenance::Book;
use crate::replicas::{FOLLOW_EVERY, Replicas};
use crate::sources::snapshots::Store;
use crate::sources::{self, ReadContext, Source, SourceError, SourceRead};
use crate::triage::{Judged, Keeper};
use app::api::ssr::figures::JobFigures;
use app::engine::maintenance::Maintenance;

/// Each read covers the longest window pages offer.
const READ_DAYS: i64 = 30;

/// One good read of an instance: what the source answered, and when. Its runs are held apart,
/// compact once Sundial's store keeps them (`crate::held`).
pub struct GoodRead {
    /// The read, its jobs without their runs (those are in `runs`).
    pub read: SourceRead,
    pub runs: HeldRuns,
    /// When the read finished, by the server's clock: the read's identity (caches, replicas).
    /// What it is "as of" is `read.now`, the fleet's "now" when it was made (a fixed one under
    /// `serve --now`), which pages and staleness go by.
    pub at: DateTime<Utc>,
}

impl GoodRead {
    /// The read with its runs (those held compact without message and steps).
    pub fn whole(&self) -> SourceRead {
        self.runs.put(&self.read)
    }

    /// The read with every run in `window` as read, words and all: a compact run's from
    /// Sundial's store (a run the store does not have stays as held). What pages show.
    async fn shown(&self, store: Option<&Store>, instance: &str, window: Window) -> SourceRead {
        self.shown_from(self.whole(), store, instance, window).await
    }

    /// [`GoodRead::shown`] with only the runs an analysis of `window` reads
    /// ([`HeldRuns::put_within`]): a few days of a long read, not all of it.
    async fn shown_within(&self, store: Option<&Store>, instance: &str, window: Window) -> SourceRead {
        self.shown_from(self.runs.put_within(&self.read, window), store, instance, window).await
    }

    async fn shown_from(
        &self,
        mut read: SourceRead,
        store: Option<&Store>,
        instance: &str,
        window: Window,
    ) -> SourceRead {
        let Some(store) = store.filter(|_| !self.runs.is_whole()) else { return read };
        match crate::history::kept_runs(store, instance, window).await {
            Ok(mut kept) => {
                for job in &mut read.input.jobs {
                    let Some(kept) = kept.remove(&job.id) else { continue };
                    let by_start: HashMap<DateTime<Utc>, app::engine::Run> =
                        kept.into_iter().map(|r| (r.start, r)).collect();
                    for run in job.runs.iter_mut().filter(|r| window.contains(r.start)) {
                        if let Some(k) = by_start.get(&run.start)
                            && (k.outcome, k.duration_secs) == (run.outcome, run.duration_secs)
                        {
                            *run = k.clone();
                        }
                    }
                }
            }
            Err(e) => {
                tracing::warn!(instance, error = %e, "Sundial's store: the runs' words could not be read; the runs are shown without them")
            }
        }
        read
    }
}

/// How reading one instance goes.
#[derive(Clone, Default)]
pub struct PollState {
    pub good: Option<Arc<GoodRead>>,
    pub last_attempt: Option<DateTime<Utc>>,
    /// The error of the last attempt, when it failed (safe to show).
    pub error: Option<String>,
    pub attempts: u64,
    /// Reads this process made of the source (with replicas, only the collector reads; the
    /// others take in its `attempts`).
    pub polled: u64,
    /// Stretches in which the instance could not be read after it had been (first failed
    /// attempt, first good read after it, the error), newest last; the open one has no end.
    /// Kept for [`OUTAGE_DAYS`] days, in memory.
    pub outages: Vec<(DateTime<Utc>, Option<DateTime<Utc>>, String)>,
}

/// The last publication of an instance this replica took in or made: its `updated_us` (the
/// store's order), and the time of the good read in it.
#[derive(Default)]
struct Followed {
    updated_us: i64,
    good_at: Option<DateTime<Utc>>,
}

/// What a collector publishes of an instance's [`PollState`] besides its good read.
#[derive(serde::Serialize, serde::Deserialize)]
struct SharedState {
    attempts: u64,
    last_attempt: Option<DateTime<Utc>>,
    error: Option<String>,
    outages: Vec<(DateTime<Utc>, Option<DateTime<Utc>>, String)>,
}

/// A good read as a collector publishes it: without the runs Sundial's shared store keeps
/// (`runs_in_store`), which the other replicas read from the store, only what changed since
/// the read they hold; a read not kept carries every run.
#[derive(serde::Serialize, serde::Deserialize)]
struct PublishedRead {
    #[serde(flatten)]
    read: SourceRead,
    #[serde(default)]
    runs_in_store: bool,
}

/// How long an unreachable stretch is remembered (pages announce those of the last 30 days).
pub const OUTAGE_DAYS: i64 = 30;

/// What reading one instance needs: its configuration, its source, Sundial's store.
struct Reader {
    config: InstanceConfig,
    source: Box<dyn Source>,
    store: Option<Store>,
    /// A fixed "now" for every read (`serve --now`); `None`: the clock.
    fixed_now: Option<DateTime<Utc>>,
    /// The history Sundial keeps of this instance, and for how long (`None`: nothing is kept,
    /// as `check-config` reads).
    history: Mutex<crate::history::InstanceHistory>,
    retention: Option<Duration>,
}

impl Reader {
    fn new(
        config: &InstanceConfig,
        store: Option<Store>,
        fixed_now: Option<DateTime<Utc>>,
        retention: Option<Duration>,
    ) -> Reader {
        let history = Mutex::new(crate::history::InstanceHistory::default());
        Reader { config: config.clone(), source: sources::open(config), store, fixed_now, history, retention }
    }

    /// One read bounded by the instance's timeout; a read that hung leaves no connection
    /// behind to be reused. `held`: the last good read, which an incremental source reads
    /// past; without it (after a restart) one is rebuilt from Sundial's store when it keeps
    /// the whole window and a mark (`crate::history::InstanceHistory::held`).
    async fn read(&self, polled_at: DateTime<Utc>, held: Option<&SourceRead>) -> Result<GoodRead, SourceError> {
        // Half-open, so it ends just after now: a run that starts at the poll's very
        // instant is read (with a fixed `--now` that instant is common).
        let window = Window::new(polled_at - Span::days(READ_DAYS), polled_at + Span::milliseconds(1));
        let rebuilt = match (held, &self.store, self.retention) {
            (None, Some(store), Some(retention)) if retention >= Span::days(READ_DAYS).to_std().unwrap_or_default() => {
                let rebuilt = self.history.lock().await.held(store, &self.config.name, window).await;
                rebuilt.unwrap_or_else(|e| {
                    tracing::warn!(instance = %self.config.name, error = %e, "Sundial's store: the kept history could not be read; reading the whole window");
                    None
                })
            }
            _ => None,
        };
        let cx = ReadContext {
            config: &self.config,
            window,
            now: polled_at,
            store: self.store.as_ref(),
            held: held.or(rebuilt.as_ref()),
        };
        match tokio::time::timeout(self.config.timeout, sources::read(self.source.as_ref(), cx)).await {
            Ok(read) => {
                let mut read = read?;
                // What the source shows is kept, and what it purged comes back from the store
                // (a fixed snapshot, the demo's file, forgets nothing).
                let mut kept = false;
                if let (Some(store), Some(retention), false) = (&self.store, self.retention, read.frozen) {
                    let written =
                        self.history.lock().await.keep(store, &self.config.name, &mut read, window, retention).await;
                    match written {
                        Ok(()) => kept = true,
                        Err(e) => {
                            tracing::warn!(instance = %self.config.name, error = %e, "the history read could not be kept; the next read keeps it")
                        }
                    }
                }
                // Kept runs are held compact: their words are in the store.
                let runs = HeldRuns::take(&mut read, kept);
                Ok(GoodRead { read, runs, at: Utc::now() })
            }
            Err(_) => {
                self.source.reset().await;
                Err(SourceError::Timeout(self.config.timeout))
            }
        }
    }
}

/// How long from `now` until the next of the slots `origin + m × every` (m ≥ 0) that is
/// still ahead (`now` itself counts as past): a read that overran its slot skips it.
fn next_slot(origin: tokio::time::Instant, every: Duration, now: tokio::time::Instant) -> Duration {
    if origin > now {
        return origin - now;
    }
    let every = every.as_nanos().max(1);
    let late = (now - origin).as_nanos();
    let wait = every - late % every;
    Duration::from_nanos(u64::try_from(wait).unwrap_or(u64::MAX))
}

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
    /// The last good read, or why there is none.
    async fn good(&self) -> Result<Arc<GoodRead>, ReportError> {
        let state = self.settled().await;
        // The last good read, even when the latest attempt failed: the page then says so
        // (the instance's status is unreachable) and shows what Sundial last saw.
        match &state.good {
            Some(good) => Ok(good.clone()),
            None => {
                let reason = match (&state.error, state.attempts) {
                    (Some(e), _) => e.clone(),
                    (None, 0) => format!(
                        "the first read is still going (timeout {})",
                        humantime::format_duration(self.reader.config.timeout)
                    ),
                    (None, _) => "it has not been read".to_owned(),
                };
                Err(ReportError::Unavailable { instance: self.reader.config.name.clone(), reason, last_good: None })
            }
        }
    }

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

    /// Read once within the timeout and record how it went; `taken_over`: the first read of
    /// this replica after another collected the instance.
    /// Whether the next read is a first (whole) read, or the first after taking the instance
    /// over: those are made at most a few at once, so adding many instances (or a replica
    /// starting, another one gone: hundreds taken over at once) never holds them all in memory
    /// nor all the cores at once.
    fn queues(&self, taken_over: bool) -> bool {
        taken_over || self.state.borrow().good.is_none()
    }

    /// Read once within the timeout and record how it went (holding `_turn`, a first read's
    /// place in the queue, while it reads).
    async fn poll(&self, _turn: Option<tokio::sync::SemaphorePermit<'_>>) {
        let c = &self.reader.config;
        let good = self.state.borrow().good.clone();
        let polled_at = self.reader.fixed_now.unwrap_or_else(Utc::now);
        let held = good.map(|g| g.whole());
        let result = self.reader.read(polled_at, held.as_ref()).await.map_err(|e| e.to_string());
        drop(held);
        match &result {
            Ok(r) => {
                let (runs, compact) = r.runs.counts();
                tracing::info!(instance = %c.name, jobs = r.read.input.jobs.len(), runs, compact, "read")
            }
            Err(e) => tracing::warn!(instance = %c.name, error = %e, "read failed"),
        }
        self.state.send_modify(|s| {
            s.attempts += 1;
            s.polled += 1;
            s.last_attempt = Some(polled_at);
            let open = s.outages.last().is_some_and(|o| o.1.is_none());
            match result {
                Ok(r) => {
                    s.good = Some(Arc::new(r));
                    s.error = None;
                    if let Some(o) = s.outages.last_mut().filter(|_| open) {
                        o.1 = Some(polled_at);
                    }
                }
                Err(e) => {
                    // An outage starts at the first failed read after a good one.
                    if !open && s.good.is_some() {
                        s.outages.push((polled_at, None, e.clone()));
                    }
                    s.error = Some(e);
                }
            }
            let horizon = polled_at - chrono::Duration::days(OUTAGE_DAYS);
            s.outages.retain(|o| o.1.is_none_or(|end| end > horizon));
        });
    }

    /// Publish this collector's reading for the other replicas: the state, and the good read
    /// when it is newer than the one published last.
    async fn publish(&self, replicas: &Replicas) {
        let name = &self.reader.config.name;
        let s = self.state.borrow().clone();
        let shared = SharedState {
            attempts: s.attempts,
            last_attempt: s.last_attempt,
            error: s.error.clone(),
            outages: s.outages.clone(),
        };
        let mut followed = self.followed.lock().await;
        let good_at = s.good.as_ref().map(|g| g.at);
        let new_good = s.good.as_ref().filter(|g| Some(g.at) != followed.good_at);
        let (state, good) = match (
            serde_json::to_string(&shared),
            new_good.map(|g| {
                let runs_in_store = !g.runs.is_whole();
                serde_json::to_string(&PublishedRead { read: g.runs.put_unkept(&g.read), runs_in_store })
            }),
        ) {
            (Ok(state), None) => (state, None),
            (Ok(state), Some(Ok(good))) => (state, Some(good)),
            (Err(e), _) | (_, Some(Err(e))) => {
                tracing::error!(instance = %name, error = %e, "replicas: a reading could not be written as JSON");
                return;
            }
        };
        let good = good.as_deref().zip(good_at).map(|(g, at)| (at, g));
        match replicas.publish(name, &state, good, Utc::now()).await {
            Ok(updated_us) => *followed = Followed { updated_us, good_at },
            Err(e) => {
                tracing::warn!(instance = %name, error = %e, "replicas: the reading could not be published; the next read publishes it")
            }
        }
    }

    /// Take in what the instance's collector published since last time; whether a new good
    /// read came with it.
    async fn follow(&self, replicas: &Replicas, first_reads: &tokio::sync::Semaphore) -> bool {
        let name = &self.reader.config.name;
        let mut followed = self.followed.lock().await;
        let have = followed.good_at.map(|g| g.timestamp_micros());
        let published = match replicas.published(name, followed.updated_us, have).await {
            Ok(Some(p)) => p,
            Ok(None) => return false,
            Err(e) => {
                tracing::warn!(instance = %name, error = %e, "replicas: Sundial's shared store could not be read; serving the last reading taken in");
                return false;
            }
        };
        let shared: SharedState = match serde_json::from_str(&published.state) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(instance = %name, replica = %published.replica, error = %e, "replicas: a published reading cannot be read (another version of Sundial?); skipped");
                followed.updated_us = published.updated_us;
                return false;
            }
        };
        let good = match (published.good_at_us.and_then(DateTime::from_timestamp_micros), published.good.as_deref()) {
            (Some(at), Some(text)) => match serde_json::from_str::<PublishedRead>(text) {
                // The collector kept its runs in the shared store before publishing: they come
                // from there (only what changed since the read held here), held compact too.
                Ok(PublishedRead { mut read, runs_in_store }) => {
                    let held = self.state.borrow().good.clone();
                    // Nothing held here: the whole window comes from the store, the largest
                    // thing a replica takes in; as many at once as first reads.
                    let _permit = match &held {
                        None => first_reads.acquire().await.ok(),
                        Some(_) => None,
                    };
                    let taken = match runs_in_store {
                        true => self.runs_from_store(&mut read, held.as_deref()).await,
                        false => Ok(()),
                    };
                    match taken {
                        Ok(()) => {
                            let runs = HeldRuns::take(&mut read, runs_in_store);
                            Some(Arc::new(GoodRead { read, runs, at }))
                        }
                        Err(e) => {
                            tracing::warn!(instance = %name, error = %e, "replicas: the runs of a published read could not be read from Sundial's shared store; the last read taken in stays");
                            return false;
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(instance = %name, replica = %published.replica, error = %e, "replicas: a published read cannot be read; the last one taken in stays");
                    None
                }
            },
            _ => None,
        };
        let fresh = good.is_some();
        if let Some(g) = &good {
            followed.good_at = Some(g.at);
        }
        self.state.send_modify(|s| {
            s.attempts = shared.attempts;
            s.last_attempt = shared.last_attempt;
            s.error = shared.error;
            s.outages = shared.outages;
            if let Some(good) = good {
                s.good = Some(good);
            }
        });
        followed.updated_us = published.updated_us;
        fresh
    }

    /// The runs of a published `read` whose runs are in Sundial's shared store (the jobs that
    /// carry none): from `held` (the last read taken in) before where any of its runs may have
    /// changed since (the earliest run going, else the latest, per job), from the store after.
    async fn runs_from_store(&self, read: &mut SourceRead, held: Option<&GoodRead>) -> Result<(), crate::store::Error> {
        let store = self.reader.store.as_ref().ok_or_else(|| crate::store::Error::Query("no store".into()))?;
        let window = Window::new(read.now - Span::days(READ_DAYS), read.now + Span::milliseconds(1));
        let held = held.map(GoodRead::whole);
        let held_runs =
            |id: &str| held.as_ref().and_then(|h| h.input.jobs.iter().find(|j| j.id == id)).map(|j| &j.runs);
        // From where the store is read: the earliest instant any job's held runs may have
        // changed at; the whole window when a job is new here.
        let mut from = window.end;
        for job in read.input.jobs.iter().filter(|j| j.unobserved.is_empty()) {
            let changes = held_runs(&job.id).and_then(|runs| {
                let going =
                    runs.iter().filter(|r| r.outcome == app::engine::RunOutcome::InProgress).map(|r| r.start).min();
                going.or_else(|| runs.last().map(|r| r.start))
            });
            from = from.min(changes.unwrap_or(window.start));
        }
        let from = from.max(window.start);
        let mut kept =
            crate::history::kept_runs(store, &self.reader.config.name, Window::new(from, window.end)).await?;
        for job in read.input.jobs.iter_mut().filter(|j| j.unobserved.is_empty()) {
            // The collector's runs: from its horizon (the source's, moved back over what the store
            // covers) or the window's start.
            let lower = job.history_horizon.map_or(window.start, |h| h.max(window.start));
            let before = held_runs(&job.id).into_iter().flatten().filter(|r| r.start >= lower && r.start < from);
            let mut runs: Vec<app::engine::Run> = before.cloned().collect();
            runs.extend(kept.remove(&job.id).unwrap_or_default().into_iter().filter(|r| r.start >= lower));
            job.runs = runs;
        }
        Ok(())
    }

    /// The state, once the first read has finished (or its timeout passed).
    async fn settled(&self) -> PollState {
        let mut rx = self.state.subscribe();
        let wait = self.reader.config.timeout + Duration::from_secs(1);
        let _ = tokio::time::timeout(wait, rx.wait_for(|s| s.attempts > 0)).await;
        rx.borrow().clone()
    }

    fn status(&self, s: &PollState) -> InstanceStatus {
        let c = &self.reader.config;
        let good = s.good.as_deref();
        let tz = good.map(|g| g.read.input.tz).unwrap_or(chrono_tz::UTC.into());
        // A frozen read (the demo's file) never changes: nothing to refresh, never stale.
        let live = !good.is_some_and(|g| g.read.frozen);
        let fmt = |t: DateTime<Utc>| app::api::ssr::point(t, tz);
        InstanceStatus {
            name: c.name.clone(),
            kind: c.kind.name().to_owned(),
            tz: good.map(|g| g.read.input.tz.name().to_owned()),
            state: match (&s.error, s.attempts) {
                (_, 0) => SourceState::Waiting,
                (Some(_), _) => SourceState::Unreachable,
                (None, _) => SourceState::Ok,
            },
            last_good: good.map(|g| fmt(g.read.now)),
            last_attempt: s.last_attempt.map(fmt),
            reads: s.polled,
            poll_secs: live.then(|| c.poll_interval.as_secs().max(1)),
            outages: s
                .outages
                .iter()
                .map(|(start, end, error)| app::api::Outage {
                    start: fmt(*start),
                    end: end.map(fmt),
                    error: error.clone(),
                })
                .collect(),
            // The one place pages learn how old their data is: the fleet's clock.
            age_secs: good
                .filter(|_| live)
                .map(|g| (self.reader.fixed_now.unwrap_or_else(Utc::now) - g.read.now).num_seconds().max(0)),
            error: s.error.clone(),
            notes: good
                .map(|g| {
                    let notes = g.read.notes.iter();
                    notes.map(|d| DiagnosticLine { severity: d.severity, text: d.message.clone() }).collect()
                })
                .unwrap_or_default(),
            jobs: good.map(|g| g.read.input.jobs.len()),
            tags: c.tags.iter().map(|(k, v)| format!("{k}={v}")).collect(),
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
            tokio::spawn(async move {
                let origin = tokio::time::Instant::now() + phase;
                let name = instance.reader.config.name.clone();
                let mut collecting = replicas.is_none();
                // When this replica last saw the instance read (its own read, or one taken in).
                let mut progress = tokio::time::Instant::now();
                loop {
                    let mut taken_over = false;
                    if let Some(r) = &replicas {
                        // Nobody has read it for two intervals: taken whatever the shares say.
                        let overdue = progress.elapsed() > every * 2 + FOLLOW_EVERY;
                        let now_collecting = r.collects(&name, overdue).await;
                        if now_collecting != collecting {
                            tracing::info!(instance = %name, replica = r.name(), collecting = now_collecting, "replicas: the lease changed hands");
                        }
                        // Taken over: read now, then at this instance's own slots of the
                        // interval (its phase), never in step with every other instance
                        // taken over at once (a replica starting, another one gone).
                        taken_over = now_collecting && !collecting;
                        collecting = now_collecting;
                    }
                    if collecting {
                        let turn = match instance.queues(taken_over) {
                            true => first_reads.acquire().await.ok(),
                            false => None,
                        };
                        // A queued read asks for the lease again when its turn comes: the
                        // shares may have moved meanwhile (a replica starting gives most of
                        // what it took at once to the others before reading it).
                        if turn.is_some()
                            && let Some(r) = &replicas
                            && !r.collects(&name, false).await
                        {
                            collecting = false;
                            continue;
                        }
                        instance.poll(turn).await;
                        progress = tokio::time::Instant::now();
                        if let Some(r) = &replicas {
                            instance.publish(r).await;
                        }
                    } else if let Some(r) = &replicas {
                        if instance.follow(r, &first_reads).await {
                            progress = tokio::time::Instant::now();
                        } else {
                            // Nothing new published: try again (the lease too) shortly.
                            tokio::time::sleep(every.min(FOLLOW_EVERY)).await;
                            continue;
                        }
                    }
                    // The window triage judges (and pages open on) is analysed now, once per
                    // read, rather than by the first page asking after it.
                    if instance.state.borrow().error.is_none() {
                        let _ = instance.judgment(Some(&gate), &settings).await;
                    }
                    if collecting {
                        let now = tokio::time::Instant::now();
                        tokio::time::sleep_until(now + next_slot(origin, every, now)).await;
                    } else {
                        tokio::time::sleep(every.min(FOLLOW_EVERY)).await;
                    }
                }
            });
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

#[cfg(test)]
mod tests {
    use super::next_slot;
    use std::time::Duration;
    use tokio::time::Instant;

    const MIN: Duration = Duration::from_secs(60);

    #[test]
    fn a_read_ahead_of_its_first_slot_waits_for_it() {
        let t = Instant::now();
        assert_eq!(next_slot(t + Duration::from_secs(45), MIN, t), Duration::from_secs(45));
    }

    #[test]
    fn a_read_that_overran_its_slot_keeps_its_place_in_the_interval() {
        let origin = Instant::now();
        // The first read of the 150th of 200 instances ended 100 s after its slot (45 s in):
        // its next read is at 45 s past the minute, as if it had been on time, not at once.
        assert_eq!(next_slot(origin, MIN, origin + Duration::from_secs(100)), Duration::from_secs(20));
        assert_eq!(next_slot(origin, MIN, origin + Duration::from_millis(59_999)), Duration::from_millis(1));
        // Ending exactly on a slot: that slot is past, the next one is a whole interval on.
        assert_eq!(next_slot(origin, MIN, origin + MIN), MIN);
        assert_eq!(next_slot(origin, MIN, origin), MIN);
    }

    #[test]
    fn slots_of_instances_spread_over_the_interval_whatever_their_first_reads_took() {
        // 200 instances, their first reads ending in a bunch (all within 30 s); their second
        // reads fall in 200 distinct places of the minute after it, as their phases say.
        let start = Instant::now();
        let n = 200u32;
        let mut seconds: Vec<u64> = (0..n)
            .map(|k| {
                let origin = start + MIN / n * (k + 1);
                let ended = start + Duration::from_millis(30_000 * u64::from(k) / u64::from(n));
                let at = ended + next_slot(origin, MIN, ended) - start;
                at.as_millis() as u64 % 60_000 / 300
            })
            .collect();
        seconds.sort_unstable();
        seconds.dedup();
        assert_eq!(seconds.len(), 200, "each instance has its own 300 ms of the minute");
    }
}
