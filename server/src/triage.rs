//! What is wrong now across the fleet, remembered: when Sundial first saw each problem (an
//! *episode*, which ends when the problem resolves) and who acknowledged or silenced it, with
//! their note, in Sundial's store so a restart forgets neither.
//!
//! The problems themselves are the engine's ([`sundial_engine::triage`]), judged from each
//! instance's last good read; [`crate::fleet::FleetBackend`] asks [`Keeper::observe`] after
//! judging and [`Keeper::rows`] to show them.
use chrono::{DateTime, TimeDelta, Utc};
use std::collections::HashMap;
use std::sync::Mutex;
use sundial_engine::Zone;
use sundial_engine::triage::Problem;
use sundial_model::ApiError;
use sundial_model::triage::ProblemSeverity;
use sundial_model::triage::{Ack, AckForm, ProblemRow, TriageData, TriageScope, page_zone, row, silence_secs};

use crate::store::Store;
use crate::store::triage::{self as stored, AckRow, OpenRow};

/// One problem judged now (the model's: pages read the same judgment).
pub use sundial_model::view::JudgedProblem as Judged;

/// Whether `ack` is of this episode of the problem and still holds (not lapsed).
fn holds(ack: Option<&Ack>, j: &Judged, now: DateTime<Utc>) -> bool {
    ack.is_some_and(|a| a.episode == j.first_seen && a.lapsed(&j.problem, now).is_none())
}

/// The open problems' first sightings and the acknowledgements, in memory and in the store.
pub struct Keeper {
    store: Option<Store>,
    /// Why there is no store (shown on the triage page).
    store_note: Option<String>,
    state: Mutex<State>,
    /// Changes with every episode started or ended and every acknowledgement.
    generation: std::sync::atomic::AtomicU64,
    /// Changes with every acknowledgement given or undone (here or by another replica).
    acks_generation: std::sync::atomic::AtomicU64,
}

#[derive(Clone, Debug)]
struct Open {
    instance: String,
    of_job: bool,
    first_seen: DateTime<Utc>,
}

#[derive(Default)]
struct State {
    /// Open problems: key → (instance, a job's problem, first seen).
    open: HashMap<String, Open>,
    acks: HashMap<String, Ack>,
}

fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn from_ms(v: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(v).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

fn severity(raw: &str) -> ProblemSeverity {
    match raw {
        "critical" => ProblemSeverity::Critical,
        "error" => ProblemSeverity::Error,
        "warning" => ProblemSeverity::Warning,
        _ => ProblemSeverity::Info,
    }
}

impl Keeper {
    /// A keeper over Sundial's store (`None`, with the reason: kept in memory only).
    pub async fn open(store: Result<&Store, String>) -> Keeper {
        let mut keeper = Keeper {
            store: None,
            store_note: None,
            state: Mutex::new(State::default()),
            generation: Default::default(),
            acks_generation: Default::default(),
        };
        let pool = match store {
            Ok(s) => s.clone(),
            Err(why) => {
                keeper.store_note = Some(why);
                return keeper;
            }
        };
        match Keeper::load(&pool).await {
            Ok(state) => {
                keeper.state = Mutex::new(state);
                keeper.store = Some(pool);
            }
            Err(e) => {
                tracing::warn!(error = %e, "triage: Sundial's store cannot be used; acknowledgements are kept in memory");
                keeper.store_note = Some(format!("Sundial's store cannot be used ({e})"));
            }
        }
        keeper
    }

    /// What the store holds: the open episodes and the acknowledgements (the tables are made
    /// when the store opens: `crate::store::sqlite`, PostgreSQL's migrations).
    async fn load(store: &Store) -> Result<State, sqlx::Error> {
        let (open, acks) = stored::load(store).await?;
        let mut state = State::default();
        for r in open {
            let open = Open { instance: r.instance, of_job: r.of_job != 0, first_seen: from_ms(r.first_seen) };
            state.open.insert(r.key, open);
        }
        for r in acks {
            let ack = Ack {
                key: r.key,
                episode: from_ms(r.episode),
                severity: severity(r.severity.as_str()),
                count: r.count.max(0) as usize,
                until: r.until.map(from_ms),
                note: r.note,
                by: r.by,
                at: from_ms(r.at),
            };
            state.acks.insert(ack.key.clone(), ack);
        }
        Ok(state)
    }

    /// With a store replicas share, take in what the others recorded: their acknowledgements,
    /// and the first sightings they made first (the store's is every replica's). Returns the
    /// store's open episodes (empty without a shared store), for problems this replica has not
    /// seen yet.
    async fn take_in_shared(&self) -> HashMap<String, Open> {
        let Some(store) = self.store.as_ref().filter(|s| s.at().shared()) else { return HashMap::new() };
        let fresh = match Keeper::load(store).await {
            Ok(fresh) => fresh,
            Err(e) => {
                tracing::warn!(error = %e, "triage: Sundial's shared store could not be read; this replica's own view is kept");
                return HashMap::new();
            }
        };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut changed = state.acks != fresh.acks;
        if changed {
            self.acks_generation.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        state.acks = fresh.acks;
        for (key, open) in &fresh.open {
            if let Some(mine) = state.open.get_mut(key)
                && mine.first_seen != open.first_seen
            {
                mine.first_seen = open.first_seen;
                changed = true;
            }
        }
        if changed {
            self.generation.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        fresh.open
    }

    /// Record what is open now: a new key starts an episode at `now`; a key no longer open
    /// ends its episode (and its acknowledgement with it), but only where it could have been
    /// seen: a job's problem ends only when its instance's jobs were judged (`judged` names
    /// them; an unreachable or stale instance's jobs are not known to be fine), and no problem
    /// of an instance not yet tried since Sundial started ends (`settled` names the tried). Returns each
    /// problem with the start of its episode, in the order given.
    pub async fn observe(
        &self,
        problems: Vec<(Problem, Zone)>,
        judged: &std::collections::HashSet<String>,
        settled: &std::collections::HashSet<String>,
        now: DateTime<Utc>,
    ) -> Vec<Judged> {
        let shared = self.take_in_shared().await;
        let (added, ended, out) = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let mut added = Vec::new();
            let out: Vec<Judged> = problems
                .into_iter()
                .map(|(problem, tz)| {
                    let key = problem.key();
                    let open = state.open.entry(key.clone()).or_insert_with(|| match shared.get(&key) {
                        // Another replica saw it first.
                        Some(theirs) => theirs.clone(),
                        None => {
                            let open = Open {
                                instance: problem.instance.clone(),
                                of_job: problem.job.is_some(),
                                first_seen: now,
                            };
                            added.push((key, open.clone()));
                            open
                        }
                    });
                    Judged { first_seen: open.first_seen, problem, tz, maintenance: None }
                })
                .collect();
            let current: std::collections::HashSet<String> = out.iter().map(|j| j.problem.key()).collect();
            let mut ended = Vec::new();
            state.open.retain(|k, o| {
                let keep = current.contains(k)
                    || !settled.contains(&o.instance)
                    || (o.of_job && !judged.contains(&o.instance));
                if !keep {
                    ended.push(k.clone());
                }
                keep
            });
            for k in &ended {
                state.acks.remove(k);
            }
            (added, ended, out)
        };
        if !added.is_empty() || !ended.is_empty() {
            self.generation.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        if let Some(store) = &self.store
            && (!added.is_empty() || !ended.is_empty())
            && let Err(e) = Keeper::save_open(store, &added, &ended).await
        {
            tracing::warn!(error = %e, "triage: could not record open problems in Sundial's store");
        }
        out
    }

    async fn save_open(store: &Store, added: &[(String, Open)], ended: &[String]) -> Result<(), sqlx::Error> {
        let added: Vec<OpenRow> = added
            .iter()
            .map(|(key, open)| OpenRow {
                key: key.clone(),
                instance: open.instance.clone(),
                of_job: i64::from(open.of_job),
                first_seen: ms(open.first_seen),
            })
            .collect();
        stored::save_open(store, &added, ended).await
    }

    /// The triage list of `scope`'s problems (open and not acknowledged, then acknowledged):
    /// at most its limit of each list, and `counts` (open by severity, acknowledged) of all of
    /// them. Rows past the limit are counted, never built.
    fn rows_in(
        &self,
        judged: &[Judged],
        scope: &TriageScope,
        now: DateTime<Utc>,
        counts: &mut ([usize; 4], usize, usize),
    ) -> (Vec<ProblemRow>, Vec<ProblemRow>) {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let limit = scope.limit.unwrap_or(usize::MAX);
        let in_scope = |j: &&Judged| scope.instance.as_ref().is_none_or(|i| *i == j.problem.instance);
        // A page's: every time in one zone, the instances' when they share one, else UTC.
        let zone = scope.one_zone.then(|| page_zone(judged.iter().filter(in_scope).map(|j| j.tz)));
        let mut open = Vec::new();
        let mut acknowledged = Vec::new();
        for j in judged.iter().filter(in_scope) {
            let ack = state.acks.get(&j.problem.key());
            let list = if holds(ack, j, now) {
                // A silence (held for a time) is counted as silenced, not as acknowledged.
                if ack.is_some_and(|a| a.until.is_some()) {
                    counts.2 += 1;
                } else {
                    counts.1 += 1;
                }
                &mut acknowledged
            } else {
                counts.0[j.problem.severity as usize] += 1;
                &mut open
            };
            if list.len() < limit {
                let zone = zone.unwrap_or(j.tz);
                let mut r = row(&j.problem, j.first_seen, zone, ack, now);
                r.maintenance =
                    j.maintenance.as_ref().filter(|h| h.until > now).map(|h| sundial_model::triage::MaintenanceNote {
                        name: h.name.clone(),
                        until: sundial_model::ssr::point(h.until, zone),
                    });
                list.push(r);
            }
        }
        (open, acknowledged)
    }

    /// Whether this problem's episode is acknowledged (or silenced) and it still holds.
    pub fn is_acknowledged(&self, j: &Judged, now: DateTime<Utc>) -> bool {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        holds(state.acks.get(&j.problem.key()), j, now)
    }

    /// Acknowledge or silence an open problem's episode, as it is now.
    pub async fn acknowledge(&self, form: &AckForm, judged: &[Judged], now: DateTime<Utc>) -> Result<(), ApiError> {
        use sundial_model::forms::{Field, take};
        let silence = silence_secs(&form.silence).map_err(ApiError::BadRequest)?;
        // The note is required and bounded, as the form says; who too.
        let note = take(Field::Note, &form.note, true).map_err(ApiError::from)?;
        let by = sundial_model::forms::who(&form.by)?;
        let Some(j) = judged.iter().find(|j| j.problem.key() == form.key && ms(j.first_seen) == form.episode_ms) else {
            return Err(ApiError::NotFound { what: "open problem (it may have resolved meanwhile)".into() });
        };
        let ack = Ack {
            key: form.key.clone(),
            episode: j.first_seen,
            severity: j.problem.severity,
            count: j.problem.count,
            until: silence.map(|s| now + TimeDelta::seconds(s)),
            note,
            by,
            at: now,
        };
        if let Some(store) = &self.store {
            let row = AckRow {
                key: ack.key.clone(),
                episode: ms(ack.episode),
                severity: ack.severity.key().to_owned(),
                count: ack.count as i64,
                until: ack.until.map(ms),
                note: ack.note.clone(),
                by: ack.by.clone(),
                at: ms(ack.at),
            };
            let kept = stored::ack_upsert(store, &row).await;
            kept.map_err(|e| {
                tracing::warn!(error = %e, "triage: could not keep an acknowledgement");
                ApiError::Transport("the acknowledgement could not be kept in Sundial's store".into())
            })?;
        }
        self.state.lock().unwrap_or_else(|e| e.into_inner()).acks.insert(ack.key.clone(), ack);
        self.generation.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.acks_generation.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Undo the acknowledgement or silence of an open problem's episode (`form.key`,
    /// `form.episode_ms`): it is open and unacknowledged again, here and (through the store)
    /// on every replica. Who undid it is in the log.
    pub async fn unacknowledge(&self, form: &AckForm, judged: &[Judged]) -> Result<(), ApiError> {
        let by = sundial_model::forms::who(&form.by)?;
        let held = {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.acks.get(&form.key).is_some_and(|a| ms(a.episode) == form.episode_ms)
        };
        let open = judged.iter().any(|j| j.problem.key() == form.key && ms(j.first_seen) == form.episode_ms);
        if !held || !open {
            return Err(ApiError::NotFound {
                what: "acknowledged open problem (it may have resolved meanwhile)".into(),
            });
        }
        if let Some(store) = &self.store {
            let gone = stored::ack_delete(store, &form.key).await;
            gone.map_err(|e| {
                tracing::warn!(error = %e, "triage: could not undo an acknowledgement in Sundial's store");
                ApiError::Transport("the acknowledgement could not be undone in Sundial's store".into())
            })?;
        }
        self.state.lock().unwrap_or_else(|e| e.into_inner()).acks.remove(&form.key);
        self.generation.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.acks_generation.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::info!(key = %form.key, by = %by, "triage: an acknowledgement was undone");
        Ok(())
    }

    /// Changes with every episode started or ended and every acknowledgement.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Changes with every acknowledgement given or undone, here or by another replica.
    pub fn acks_generation(&self) -> u64 {
        self.acks_generation.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The whole list as pages and the API receive it.
    pub fn data(
        &self,
        judged: &[Judged],
        scope: &TriageScope,
        now: DateTime<Utc>,
        counts: (usize, usize, usize),
    ) -> TriageData {
        let mut listed = ([0; 4], 0, 0);
        let (problems, acknowledged) = self.rows_in(judged, scope, now, &mut listed);
        TriageData {
            problems,
            acknowledged,
            instances: counts.0,
            judged: counts.1,
            jobs: counts.2,
            store_note: self.store_note.clone(),
            open_by_severity: listed.0,
            acknowledged_total: listed.1,
            silenced_total: listed.2,
            maintenance: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use sundial_engine::triage::ProblemKind;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn problem(kind: ProblemKind, job: Option<&str>) -> (Problem, Zone) {
        let p = Problem {
            kind,
            severity: kind.severity(),
            instance: "A".into(),
            job: job.map(|j| (j.to_owned(), j.to_owned())),
            since: None,
            at: t("2026-11-22T12:00:00Z"),
            evidence: String::new(),
            sentence: Default::default(),
            count: 1,
        };
        (p, chrono_tz::UTC.into())
    }

    fn set(names: &[&str]) -> HashSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[tokio::test]
    async fn an_episode_ends_only_where_its_absence_was_seen() {
        let keeper = Keeper::open(Err("in memory".into())).await;
        let (t0, t1, t2) = (t("2026-11-22T12:00:00Z"), t("2026-11-22T12:01:00Z"), t("2026-11-22T12:02:00Z"));
        let both = vec![problem(ProblemKind::Unreachable, None), problem(ProblemKind::Missed, Some("j"))];
        let first = keeper.observe(both.clone(), &set(&["A"]), &set(&["A"]), t0).await;
        assert!(first.iter().all(|j| j.first_seen == t0));
        // Restarted, nothing tried yet: nothing ends.
        keeper.observe(Vec::new(), &set(&[]), &set(&[]), t1).await;
        // Tried but not judged (unreachable, stale): the instance's own problem may end, its jobs' not.
        keeper.observe(Vec::new(), &set(&[]), &set(&["A"]), t1).await;
        let again = keeper.observe(both, &set(&["A"]), &set(&["A"]), t2).await;
        assert_eq!(again[0].first_seen, t2, "the instance-wide episode ended and a new one began");
        assert_eq!(again[1].first_seen, t0, "the job's episode goes on");
    }
}
