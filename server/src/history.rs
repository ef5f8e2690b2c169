//! The history Sundial keeps: every run it reads, in its own store, so that what a scheduler
//! purges (msdb keeps 100 rows per job by default; pg_cron's `job_run_details` is often
//! trimmed) is still there for pages and the API.
//!
//! After each good read, per job: the runs the read holds are written to `kept_run` (keyed by
//! instance, job and start: a re-read never counts a run twice; a run seen in progress is
//! written again when it ends), and the span in which the read saw the job's whole history
//! (from the source's horizon, or the read's window start, to the read) joins the job's spans
//! in `kept_span`. Then `engine::history::merge` puts the kept runs from before the source's
//! horizon back into the read. Jobs whose runs Sundial already samples itself (MySQL events:
//! `unobserved` spans) are left as they are.
//!
//! What was written is remembered in memory only from where the next read may change it (per
//! job, the earliest run kept still going, else the latest kept: loaded once from the store,
//! then kept per read), so a read writes only what is new and nothing holds a job's whole
//! kept history: runs from before the source's horizon are read back from the store when a
//! read lacks them, and pages read a window's kept runs with [`kept_runs`]. A failed write forgets that memory: the next read writes
//! everything it holds again (nothing read is lost while the source still has it).
//! The scheduler's own log lines (`SourceRead::events`) are kept the same way (`kept_event`,
//! keyed by instant and content), and those older than the read's oldest come back into it.
//! Each version of a job's schedules is kept too (`kept_schedule`, from the read that first saw
//! it), and the versions before today's come back into the read as the job's
//! [`JobInput::earlier`](sundial_engine::fleet::JobInput::earlier): a schedule edited between two
//! polls applies from then on, never to the runs before it.
//! Each job's definition is kept too (`job_definition`, the last read's), and each change a
//! read sees against it (`engine::changes::between`) is kept in `job_change`, seen at the
//! read's `now`: the job page's "Changes", the log's `changed` lines, `/api/changes` and the
//! alerts of kind "changed" read it ([`changes_in`]). An instance's first read is its
//! baseline, no change (a row of an empty job marks it).
//! Runs, lines and changes older than the retention (`history_retention`, default 90 days) are
//! deleted.
use crate::sources::{Mark, SourceRead};
use crate::store::history::{self as stored, JobWrite, KeptRunRow};
use crate::store::{Error, Store};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;
use sundial_engine::changes::{Change, Definition as JobDefinition};
use sundial_engine::{Run, Window, history};

/// The job of the row that marks an instance's baseline in `job_definition`.
const BASELINE: &str = "";

/// Retention is enforced at most this often per instance.
const PRUNE_EVERY: chrono::Duration = chrono::Duration::hours(1);

/// What is kept for one job, as written to the store.
#[derive(Default)]
struct JobKept {
    /// Spans of whole history read, disjoint, by start.
    spans: Vec<Window>,
    /// Runs kept from `write_from` on, by start: what the next read may write again.
    runs: BTreeMap<DateTime<Utc>, Run>,
    /// Runs from this start on are written at the next read (the earliest still in progress,
    /// else the latest written).
    write_from: Option<DateTime<Utc>>,
    /// The versions of its schedules, each from when a read first saw it, oldest first.
    versions: Vec<(DateTime<Utc>, Schedules)>,
}

/// What says which runs a job's schedules expect: the job's flag, and each schedule's id, flag
/// and definition.
type Definition = (bool, Vec<(i64, bool, sundial_engine::Schedule)>);

/// A job's schedules as one read saw them (a `kept_schedule` row, as JSON).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Schedules {
    enabled: bool,
    schedules: Vec<sundial_engine::fleet::JobSchedule>,
}

impl Schedules {
    fn of(job: &sundial_engine::fleet::JobInput) -> Schedules {
        Schedules { enabled: job.enabled, schedules: job.schedules.clone() }
    }

    /// What says which runs are expected: the job's flag and each schedule's id, flag and
    /// definition. `None` when a schedule's expected runs chain from its own fires (nothing
    /// to keep: see `Schedule::definition`).
    fn definition(&self) -> Option<Definition> {
        let each = self.schedules.iter().map(|s| s.schedule.definition().map(|d| (s.id, s.enabled, d)));
        Some((self.enabled, each.collect::<Option<Vec<_>>>()?))
    }
}

/// One instance's kept history, in memory.
#[derive(Default)]
pub struct InstanceHistory {
    loaded: bool,
    jobs: HashMap<String, JobKept>,
    pruned: Option<DateTime<Utc>>,
    /// The scheduler's log lines from this instant on are written at the next read (the
    /// newest written; `None`: all).
    events_from: Option<DateTime<Utc>>,
    /// The source's [`Mark`] last written to `read_mark`.
    mark: Option<Mark>,
    /// Each job's definition as last kept; `None`: the instance has no baseline yet.
    definitions: Option<BTreeMap<String, JobDefinition>>,
}

fn us(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

fn from_us(v: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_micros(v)
}

/// `spans` with `add` joined in (overlapping or touching spans become one); whether it changed.
fn join(spans: &mut Vec<Window>, add: Window) -> bool {
    if add.is_empty() || spans.iter().any(|s| s.start <= add.start && s.end >= add.end) {
        return false;
    }
    let mut joined = add;
    spans.retain(|s| {
        let meets = s.start <= joined.end && s.end >= joined.start;
        if meets {
            joined = Window::new(joined.start.min(s.start), joined.end.max(s.end));
        }
        !meets
    });
    spans.push(joined);
    spans.sort_by_key(|s| s.start);
    true
}

impl InstanceHistory {
    /// Keep what `read` of `instance` holds over `window`, then merge what was kept into it.
    pub async fn keep(
        &mut self,
        store: &Store,
        instance: &str,
        read: &mut SourceRead,
        window: Window,
        retention: Duration,
    ) -> Result<(), Error> {
        if !self.loaded {
            self.load(store, instance, window).await?;
        }
        let result = self.write(store, instance, read, window, retention).await;
        if result.is_err() {
            // Written or not, nothing is assumed: the next read writes everything again.
            *self = InstanceHistory::default();
        }
        for job in read.input.jobs.iter_mut().filter(|j| j.unobserved.is_empty()) {
            let Some(kept) = self.jobs.get(&job.id) else { continue };
            let Some(horizon) = job.history_horizon else { continue };
            let from = history::covered_from(&kept.spans, horizon).max(window.start);
            // A read that holds runs from before the horizon already has them (an incremental
            // source's held read, merged before); else they come back from the store.
            let earlier = if from >= horizon || job.runs.iter().any(|r| r.start >= from && r.start < horizon) {
                Vec::new()
            } else {
                match kept_job_runs(store, instance, &job.id, Window::new(from, horizon)).await {
                    Ok(runs) => runs,
                    Err(e) => {
                        tracing::warn!(instance, job = %job.id, error = %e, "Sundial's store: the kept runs before the scheduler's horizon could not be read");
                        continue;
                    }
                }
            };
            history::merge(job, &kept.spans, &earlier);
        }
        if result.is_ok() {
            // The schedules each job had before today's, where they changed while Sundial read.
            for job in &mut read.input.jobs {
                let Some(kept) = self.jobs.get(&job.id) else { continue };
                job.earlier = eras(&kept.versions, &Schedules::of(job), window.start);
            }
            // The scheduler's log lines it no longer has come back from the store.
            let oldest = read.events.iter().map(|e| e.at).min();
            read.events.extend(kept_events(store, instance, window.start, oldest).await?);
        }
        result
    }

    /// After a restart, what the store holds of `instance` over `window` as a read for an
    /// incremental source to add to ([`crate::sources::ReadContext::held`]): the kept runs of
    /// each job and the [`Mark`] of the last read kept, written in the same transaction as its
    /// runs (so every run up to the mark is kept). `None` without a mark. The jobs have only
    /// their ids and runs: a delta's jobs replace them.
    pub async fn held(&mut self, store: &Store, instance: &str, window: Window) -> Result<Option<SourceRead>, Error> {
        let text = stored::read_mark(store, instance).await?;
        let Some(mark) = text.and_then(|t| serde_json::from_str::<Mark>(&t).ok()) else { return Ok(None) };
        if !self.loaded {
            self.load(store, instance, window).await?;
        }
        let mut runs = kept_runs(store, instance, window).await?;
        let ids: std::collections::BTreeSet<String> = self.jobs.keys().chain(runs.keys()).cloned().collect();
        let jobs = ids
            .into_iter()
            .map(|id| sundial_engine::fleet::JobInput {
                runs: runs.remove(&id).unwrap_or_default(),
                id,
                name: String::new(),
                category: String::new(),
                owner: None,
                enabled: true,
                command: None,
                schedules: Vec::new(),
                history_horizon: None,
                source_horizon: None,
                unobserved: Vec::new(),
                diagnostics: Vec::new(),
                earlier: Vec::new(),
                modified: None,
            })
            .collect();
        let input = sundial_engine::fleet::InstanceInput {
            name: instance.to_owned(),
            tz: chrono_tz::UTC.into(),
            jobs,
            agent_starts: Vec::new(),
            maintenance: Vec::new(),
            scheduler_stopped: false,
        };
        self.mark = Some(mark.clone());
        Ok(Some(SourceRead { mark: Some(mark), ..SourceRead::new(input, Vec::new(), window.end) }))
    }

    /// What the store holds for `instance` from `window`'s start on.
    async fn load(&mut self, store: &Store, instance: &str, window: Window) -> Result<(), Error> {
        let (spans, runs, versions) = stored::kept(store, instance, us(window.start)).await?;
        let mut jobs: HashMap<String, JobKept> = HashMap::new();
        for (job, from, until) in spans {
            if let (Some(a), Some(b)) = (from_us(from), from_us(until)) {
                jobs.entry(job).or_default().spans.push(Window::new(a, b));
            }
        }
        let mut unreadable = 0;
        for (job, _, text) in runs {
            match serde_json::from_str::<Run>(&text) {
                Ok(run) => {
                    let kept = jobs.entry(job).or_default();
                    let going = run.outcome == sundial_engine::RunOutcome::InProgress;
                    kept.write_from = Some(match kept.write_from {
                        None => run.start,
                        Some(w) if going => w.min(run.start),
                        Some(w) => w,
                    });
                    kept.runs.insert(run.start, run);
                }
                Err(_) => unreadable += 1,
            }
        }
        for (job, from, text) in versions {
            match (from_us(from), serde_json::from_str::<Schedules>(&text)) {
                (Some(from), Ok(v)) => jobs.entry(job).or_default().versions.push((from, v)),
                _ => unreadable += 1,
            }
        }
        let mut definitions = None;
        for (job, text) in stored::definitions(store, instance).await? {
            let all = definitions.get_or_insert_with(BTreeMap::new);
            if job == BASELINE {
                continue;
            }
            match serde_json::from_str::<JobDefinition>(&text) {
                Ok(d) => {
                    all.insert(job, d);
                }
                Err(_) => unreadable += 1,
            }
        }
        self.definitions = definitions;
        if unreadable > 0 {
            tracing::warn!(
                instance,
                unreadable,
                "Sundial's store: kept runs or schedules that cannot be read were left out"
            );
        }
        self.jobs = jobs;
        self.loaded = true;
        Ok(())
    }

    /// Write the read's new runs and spans (one transaction), and prune past the retention.
    async fn write(
        &mut self,
        store: &Store,
        instance: &str,
        read: &SourceRead,
        window: Window,
        retention: Duration,
    ) -> Result<(), Error> {
        let mut writes = stored::Write::default();
        // A job's schedules, when they differ from the last version kept: a new version.
        for job in &read.input.jobs {
            let now = Schedules::of(job);
            let Some(definition) = now.definition() else { continue };
            let kept = self.jobs.entry(job.id.clone()).or_default();
            if kept.versions.last().is_some_and(|(_, v)| v.definition() == Some(definition.clone())) {
                continue;
            }
            let text = serde_json::to_string(&now).map_err(|e| Error::Query(e.to_string()))?;
            writes.schedules.push((job.id.clone(), us(read.now), text));
            kept.versions.retain(|(from, _)| *from < read.now);
            kept.versions.push((read.now, now));
        }
        for job in read.input.jobs.iter().filter(|j| j.unobserved.is_empty()) {
            let kept = self.jobs.entry(job.id.clone()).or_default();
            let from = job.history_horizon.map_or(window.start, |h| h.max(window.start));
            let spans = (from < read.now && join(&mut kept.spans, Window::new(from, read.now)))
                .then(|| kept.spans.iter().map(|s| (us(s.start), us(s.end))).collect());
            // New and changed runs (written a statement per many: see `store::history`); the
            // last of two runs at one start, as one per row would keep.
            let mut rows: BTreeMap<DateTime<Utc>, String> = BTreeMap::new();
            for run in job.runs.iter().filter(|r| kept.write_from.is_none_or(|w| r.start >= w)) {
                if kept.runs.get(&run.start) == Some(run) {
                    continue;
                }
                let text = serde_json::to_string(run).map_err(|e| Error::Query(e.to_string()))?;
                rows.insert(run.start, text);
                kept.runs.insert(run.start, run.clone());
            }
            let runs = rows.into_iter().map(|(start, text)| (us(start), text)).collect();
            writes.jobs.push(JobWrite { job: job.id.clone(), spans, runs });
            // Next time: from the earliest run still going (it will end), else the latest run.
            let recent = job.runs.iter().filter(|r| r.start >= window.start);
            let going =
                recent.clone().filter(|r| r.outcome == sundial_engine::RunOutcome::InProgress).map(|r| r.start).min();
            if let Some(w) = going.or_else(|| recent.map(|r| r.start).max()) {
                kept.write_from = Some(w);
            }
            kept.runs = match kept.write_from {
                Some(from) => kept.runs.split_off(&from),
                None => BTreeMap::new(),
            };
        }
        // Each job's definition, and what changed since the last read (none at the baseline).
        let now: BTreeMap<String, JobDefinition> =
            read.input.jobs.iter().map(|j| (j.id.clone(), JobDefinition::of(j))).collect();
        match &self.definitions {
            None => {
                writes.definitions.push((BASELINE.to_owned(), Some(String::from("{}"))));
                for (job, d) in &now {
                    writes.definitions.push((job.clone(), Some(json(d)?)));
                }
            }
            Some(before) => {
                for change in sundial_engine::changes::between(before, &read.input.jobs, read.now) {
                    writes.changes.push((
                        change.job.clone(),
                        us(change.seen),
                        change.kind.key().to_owned(),
                        json(&change)?,
                    ));
                }
                for (job, d) in &now {
                    if before.get(job) != Some(d) {
                        writes.definitions.push((job.clone(), Some(json(d)?)));
                    }
                }
                for job in before.keys().filter(|j| !now.contains_key(*j)) {
                    writes.definitions.push((job.clone(), None));
                }
            }
        }
        self.definitions = Some(now);
        for event in read.events.iter().filter(|e| self.events_from.is_none_or(|from| e.at >= from)) {
            let text = serde_json::to_string(event).map_err(|e| Error::Query(e.to_string()))?;
            let digest = {
                use sha2::Digest;
                hex::encode(sha2::Sha256::digest(text.as_bytes()))
            };
            writes.events.push((us(event.at), digest, text));
        }
        if let Some(newest) = read.events.iter().map(|e| e.at).max() {
            self.events_from = Some(newest);
        }
        // Where the source's history was read up to, with the runs read up to it.
        if let Some(mark) = read.mark.as_ref().filter(|m| self.mark.as_ref() != Some(*m)) {
            writes.mark = Some(serde_json::to_string(mark).map_err(|e| Error::Query(e.to_string()))?);
            self.mark = Some(mark.clone());
        }
        if self.pruned.is_none_or(|p| read.now - p >= PRUNE_EVERY) {
            let cutoff = read.now - chrono::Duration::from_std(retention).unwrap_or(chrono::Duration::days(90));
            writes.prune_before = Some(us(cutoff));
            self.pruned = Some(read.now);
        }
        stored::write(store, instance, &writes).await
    }
}

/// A job's earlier schedules from its kept versions (oldest first), ending where the next one
/// was first seen; those that ended before `from` are left out. None when the last version
/// kept is not `now` (it could not be written: nothing is assumed).
fn eras(
    versions: &[(DateTime<Utc>, Schedules)],
    now: &Schedules,
    from: DateTime<Utc>,
) -> Vec<sundial_engine::fleet::ScheduleEra> {
    match versions.last() {
        Some((_, last)) if last.definition().is_some() && last.definition() == now.definition() => {}
        _ => return Vec::new(),
    }
    versions
        .windows(2)
        .filter(|w| w[1].0 > from)
        .map(|w| sundial_engine::fleet::ScheduleEra {
            until: w[1].0,
            enabled: w[0].1.enabled,
            schedules: w[0].1.schedules.clone(),
        })
        .collect()
}

/// `v` as JSON, for the store.
fn json<T: serde::Serialize>(v: &T) -> Result<String, Error> {
    serde_json::to_string(v).map_err(|e| Error::Query(e.to_string()))
}

/// The changes kept of `instance` seen in `window` (up to the read's now) added to `read` as
/// the log's `changed` lines: after [`InstanceHistory::keep`], and for a frozen read too (the
/// demo's file: its changes are planted in the store).
pub async fn add_change_lines(store: &Store, instance: &str, read: &mut SourceRead, window: Window) {
    let seen = Window::new(window.start, read.now + chrono::Duration::milliseconds(1));
    match changes_in(store, Some(instance), None, seen).await {
        Ok(changes) => read.events.extend(changes.iter().map(|(_, c)| change_line(c))),
        Err(e) => {
            tracing::warn!(instance, error = %e, "Sundial's store: the changes of jobs' definitions could not be read")
        }
    }
}

/// A change as the log's `changed` line: "Schedule changed: 0 1 * * * → 0 3 * * *".
pub fn change_line(c: &Change) -> sundial_engine::log::LogEvent {
    let value = |v: &Option<sundial_engine::changes::Value>| v.as_ref().map(|v| v.text());
    let text = match (value(&c.before), value(&c.after)) {
        (Some(a), Some(b)) => format!("{}: {a} → {b}", c.kind.words()),
        (None, Some(b)) if !b.is_empty() => format!("{}: {b}", c.kind.words()),
        (Some(a), None) if !a.is_empty() => format!("{}: was {a}", c.kind.words()),
        _ => c.kind.words().to_owned(),
    };
    sundial_engine::log::LogEvent {
        at: c.seen,
        job_id: c.job.clone(),
        kind: sundial_engine::log::LogKind::Changed,
        text,
        members: Vec::new(),
    }
}

/// The changes kept of `instance` (`None`: every instance) and `job` (`None`: every job), seen
/// in `window`, each with its instance, by when seen. Rows that cannot be read are left out.
pub async fn changes_in(
    store: &Store,
    instance: Option<&str>,
    job: Option<&str>,
    window: Window,
) -> Result<Vec<(String, Change)>, Error> {
    let rows = stored::changes_in(store, instance, job, us(window.start), us(window.end)).await?;
    Ok(rows.into_iter().filter_map(|(i, text)| serde_json::from_str(&text).ok().map(|c| (i, c))).collect())
}

/// Every run kept of `instance` that started in `window`, per job, by start: what pages show of
/// runs held without their words (`crate::held`). Rows that cannot be read are left out.
pub async fn kept_runs(store: &Store, instance: &str, window: Window) -> Result<HashMap<String, Vec<Run>>, Error> {
    let rows: Vec<KeptRunRow> = stored::runs_in(store, instance, us(window.start), us(window.end)).await?;
    let mut out: HashMap<String, Vec<Run>> = HashMap::new();
    for (job, _, text) in rows {
        if let Ok(run) = serde_json::from_str::<Run>(&text) {
            out.entry(job).or_default().push(run);
        }
    }
    Ok(out)
}

/// The runs kept of one job of `instance` that started in `window`, by start.
async fn kept_job_runs(store: &Store, instance: &str, job: &str, window: Window) -> Result<Vec<Run>, Error> {
    let texts = stored::job_runs_in(store, instance, job, us(window.start), us(window.end)).await?;
    Ok(texts.iter().filter_map(|t| serde_json::from_str(t).ok()).collect())
}

/// The log lines kept of `instance` from `from` on and before `before` (`None`: all).
async fn kept_events(
    store: &Store,
    instance: &str,
    from: DateTime<Utc>,
    before: Option<DateTime<Utc>>,
) -> Result<Vec<sundial_engine::log::LogEvent>, Error> {
    let texts = stored::events_in(store, instance, us(from), before.map_or(i64::MAX, us)).await?;
    Ok(texts.iter().filter_map(|t| serde_json::from_str(t).ok()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn w(a: i64, b: i64) -> Window {
        let t = |h: i64| Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap() + chrono::Duration::hours(h);
        Window::new(t(a), t(b))
    }

    #[test]
    fn spans_join_when_they_meet_and_stay_apart_across_a_gap() {
        let mut spans = vec![w(0, 5)];
        assert!(join(&mut spans, w(5, 8)), "touching");
        assert_eq!(spans, [w(0, 8)]);
        assert!(!join(&mut spans, w(2, 6)), "already covered");
        assert!(join(&mut spans, w(10, 12)));
        assert_eq!(spans, [w(0, 8), w(10, 12)]);
        assert!(join(&mut spans, w(7, 11)), "bridging two");
        assert_eq!(spans, [w(0, 12)]);
    }
}
