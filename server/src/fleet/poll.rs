//! Reading the instances: each one's `Reader`, how its reads go (`PollState`, its last
//! `GoodRead`, its outages), its poller's loop on its own slots of the interval
//! (`keep_polling`), and the status pages show of it (`Instance::status`).
use chrono::{DateTime, Duration as Span, Utc};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use sundial_engine::Window;
use sundial_engine::triage::TriageSettings;
use sundial_model::ssr::ReportError;
use sundial_model::{DiagnosticLine, Incident, IncidentKind, InstanceCondition, InstanceStatus, SourceState};
use tokio::sync::Mutex;

use super::{Instance, READ_DAYS};
use crate::config::InstanceConfig;
use crate::held::HeldRuns;
use crate::replicas::{FOLLOW_EVERY, Replicas};
use crate::sources::snapshots::Store;
use crate::sources::{self, ReadContext, Source, SourceError, SourceRead};

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
    pub(super) async fn shown(&self, store: Option<&Store>, instance: &str, window: Window) -> SourceRead {
        self.shown_from(self.whole(), store, instance, window).await
    }

    /// [`GoodRead::shown`] with only the runs an analysis of `window` reads
    /// ([`HeldRuns::put_within`]): a few days of a long read, not all of it.
    pub(super) async fn shown_within(&self, store: Option<&Store>, instance: &str, window: Window) -> SourceRead {
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
                    let by_start: HashMap<DateTime<Utc>, sundial_engine::Run> =
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

/// How long an unreachable stretch is remembered (pages announce those of the last 30 days).
pub const OUTAGE_DAYS: i64 = 30;

/// What reading one instance needs: its configuration, its source, Sundial's store.
pub(super) struct Reader {
    pub(super) config: InstanceConfig,
    source: Box<dyn Source>,
    pub(super) store: Option<Store>,
    /// A fixed "now" for every read (`serve --now`); `None`: the clock.
    pub(super) fixed_now: Option<DateTime<Utc>>,
    /// The history Sundial keeps of this instance, and for how long (`None`: nothing is kept,
    /// as `check-config` reads).
    history: Mutex<crate::history::InstanceHistory>,
    retention: Option<Duration>,
}

impl Reader {
    pub(super) fn new(
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
    pub(super) async fn read(
        &self,
        polled_at: DateTime<Utc>,
        held: Option<&SourceRead>,
    ) -> Result<GoodRead, SourceError> {
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
                // The changes of its jobs' definitions Sundial saw: the log's `changed` lines.
                if let Some(store) = &self.store {
                    crate::history::add_change_lines(store, &self.config.name, &mut read, window).await;
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

impl Instance {
    /// The last good read, or why there is none.
    pub(super) async fn good(&self) -> Result<Arc<GoodRead>, ReportError> {
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

    /// The state, once the first read has finished (or its timeout passed).
    pub(super) async fn settled(&self) -> PollState {
        let mut rx = self.state.subscribe();
        let wait = self.reader.config.timeout + Duration::from_secs(1);
        let _ = tokio::time::timeout(wait, rx.wait_for(|s| s.attempts > 0)).await;
        rx.borrow().clone()
    }

    pub(super) fn status(&self, s: &PollState) -> InstanceStatus {
        let c = &self.reader.config;
        let good = s.good.as_deref();
        let tz = good.map(|g| g.read.input.tz).unwrap_or(chrono_tz::UTC.into());
        // A frozen read (the demo's file) never changes: nothing to refresh, never stale.
        let live = !good.is_some_and(|g| g.read.frozen);
        let fmt = |t: DateTime<Utc>| sundial_model::ssr::point(t, tz);
        let state = match (&s.error, s.attempts) {
            (_, 0) => SourceState::Waiting,
            (Some(_), _) => SourceState::Unreachable,
            (None, _) => SourceState::Ok,
        };
        // The instance's one judgment: its scheduler's incidents from the latest judgment of
        // its reads, the stretches it could not be read from its poller's state.
        let judged = self.latest.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|j| j.incidents.clone());
        let mut incidents: Vec<Incident> = judged.map(|i| i.to_vec()).unwrap_or_default();
        // A stretch still going is the condition's (unreachable) and the stale banner's.
        incidents.extend(s.outages.iter().filter(|o| o.1.is_some()).map(|(start, end, error)| Incident {
            kind: IncidentKind::Unreachable,
            start: fmt(*start),
            end: fmt(end.or(s.last_attempt).unwrap_or(*start)),
            due: 0,
            missed: 0,
            unknown: 0,
            jobs: 0,
            ongoing: end.is_none(),
            reason: Some(error.clone()),
            last_seen: None,
        }));
        incidents.sort_by_key(|i| std::cmp::Reverse(i.end.ms));
        let now = good.map(|g| g.read.now).unwrap_or_else(|| self.reader.fixed_now.unwrap_or_else(Utc::now));
        let held = self
            .book
            .for_instance(&c.name, sundial_engine::Window::new(now, now + chrono::TimeDelta::seconds(1)))
            .iter()
            .any(|m| m.jobs.is_empty());
        InstanceStatus {
            condition: InstanceCondition::of(state, &incidents, held),
            incidents,
            name: c.name.clone(),
            kind: c.kind.name().to_owned(),
            scheduler: c.kind.scheduler(),
            tz: good.map(|g| g.read.input.tz.name().to_owned()),
            state,
            last_good: good.map(|g| fmt(g.read.now)),
            last_attempt: s.last_attempt.map(fmt),
            reads: s.polled,
            poll_secs: live.then(|| c.poll_interval.as_secs().max(1)),
            outages: s
                .outages
                .iter()
                .map(|(start, end, error)| sundial_model::Outage {
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

/// One instance's poller, for as long as Sundial runs: reads it at once, then at its own
/// slots of the interval (`every`, from `phase` on); with replicas only while this one holds
/// its lease (else it takes in what the collector published); each read judged after it.
pub(super) async fn keep_polling(
    instance: Arc<Instance>,
    every: Duration,
    phase: Duration,
    replicas: Option<Arc<Replicas>>,
    gate: Arc<tokio::sync::Semaphore>,
    first_reads: Arc<tokio::sync::Semaphore>,
    settings: TriageSettings,
) {
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
