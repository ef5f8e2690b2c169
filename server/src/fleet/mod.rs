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
//!
//! Here: `FleetBackend` and its start, the `Instance` every file adds to, `probe`. Reading is
//! `poll`, what replicas publish and take in of a reading `share`, judging `judge`, the pages'
//! reports and snapshots `cache`, and what pages ask of the fleet `backend`.
use chrono::{DateTime, Utc};
use std::sync::Arc;
use std::time::Duration;
use sundial_engine::triage::TriageSettings;
use tokio::sync::{Mutex, watch};

use crate::config::FleetConfig;
use crate::maintenance::Book;
use crate::replicas::Replicas;
use crate::sources;
use crate::sources::snapshots::Store;
use crate::triage::Keeper;

mod backend;
mod cache;
mod judge;
mod poll;
mod risks;
mod share;

pub use cache::PAGE_CACHE_BYTES;
use cache::{Kept, PageKey, approx_bytes};
use judge::JudgeKey;
pub use judge::{FleetJudgment, InstanceJudgment};
use poll::Reader;
pub use poll::{GoodRead, OUTAGE_DAYS, PollState};
use share::Followed;

/// Each read covers the longest window pages offer.
const READ_DAYS: i64 = 30;

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
    /// The risks ahead of the last good read, per horizon asked (see `risks.rs`).
    risks: Mutex<risks::Kept>,
    /// The fleet file's deadlines that hold for some of its jobs (`[[deadline]]`).
    deadlines: Arc<Vec<crate::config::DeadlineConfig>>,
}

/// The pages' [`Backend`](sundial_model::ssr::Backend) over a configured fleet (see the module docs).
pub struct FleetBackend {
    instances: Vec<Arc<Instance>>,
    triage_settings: TriageSettings,
    keeper: Keeper,
    /// The fleet's problems, for the reads and the moment they were judged from.
    judged: std::sync::Mutex<Option<(JudgeKey, Arc<FleetJudgment>)>>,
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

/// First reads (each a whole window, the largest a read gets) under way at once, per core.
const FIRST_READS_PER_CORE: usize = 1;

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
                    risks: Mutex::new(risks::Kept::default()),
                    deadlines: Arc::new(
                        config
                            .deadlines
                            .iter()
                            .filter(|d| d.scope.covers_instance(&c.name, &c.tags))
                            .cloned()
                            .collect(),
                    ),
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
