//! Maintenance windows: the fleet file's (`[[maintenance]]`) and those an admin adds or ends
//! from the triage page, kept in Sundial's store with who, when and why.
//!
//! The [`Book`] answers three questions, each from plain data:
//! - which windows cover an instance's jobs over a span ([`Book::for_instance`]): every
//!   analysis gets them in its input, so a due run not made inside one is "maintenance"
//!   (`app::engine::fleet::analyze`), on every page, in the API and in the metrics alike;
//! - which window holds a problem now ([`Book::holding`]): triage marks it, and alerts wait
//!   until the window ends (a problem still open then alerts at once);
//! - what the triage page lists ([`Book::listing`]).
//!
//! Nothing is deleted: an added window is a row; ending one (early, or cancelling one to
//! come) is another row naming the window and the occurrence it ends. Every change bumps
//! [`Book::generation`], which analyses and judgments are keyed by, so a window added or
//! ended applies at once. With replicas, each takes in the others' rows when the fleet is
//! judged ([`Book::refresh`]).
use crate::config::{MaintenanceConfig, MaintenanceScope};
use crate::on_db;
use crate::store::Store;
use app::api::ApiError;
use app::api::triage::{MaintenanceEndForm, MaintenanceForm, WINDOW_LENGTHS, WindowRow};
use app::engine::maintenance::{self as engine, Maintenance, When};
use app::engine::{Window, Zone};
use chrono::{DateTime, TimeDelta, Utc};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// One window as declared (in the file, or added from the page).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// `file:<name>`, or `added:<ms>` for one added from the page.
    pub id: String,
    pub name: String,
    pub reason: String,
    pub zone: Zone,
    pub when: When,
    pub scope: MaintenanceScope,
    /// The fleet file's line.
    pub line: Option<usize>,
    /// Who added it from the page, when.
    pub added: Option<(String, DateTime<Utc>)>,
}

/// One occurrence of a window ended early (or cancelled before it began).
#[derive(Clone, Debug, PartialEq)]
pub struct Ended {
    pub id: String,
    /// The occurrence's start.
    pub start: DateTime<Utc>,
    pub by: String,
    pub at: DateTime<Utc>,
    pub why: String,
}

/// The windows that may hold a judgement's problems, expanded once ([`Book::holder`]).
pub struct Holder<'a> {
    book: &'a Book,
    /// Each window's scope, name and (possibly cut short) span.
    spans: Vec<(MaintenanceScope, String, Window)>,
}

impl Holder<'_> {
    /// [`Book::holding`] of one problem whose episode began at `since`.
    pub fn holding(&self, instance: &str, job: Option<(&str, &str)>, since: DateTime<Utc>) -> Option<Holding> {
        let tags = self.book.tags_of(instance);
        self.spans
            .iter()
            .filter(|(scope, _, w)| w.end > since && scope.covers(instance, &tags, job))
            .map(|(_, name, w)| Holding { name: name.clone(), until: w.end })
            .max_by_key(|h| h.until)
    }
}

/// The window that held a problem (see [`Book::holding`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Holding {
    pub name: String,
    pub until: DateTime<Utc>,
}

#[derive(Default)]
struct State {
    added: Vec<Entry>,
    ended: Vec<Ended>,
}

/// The fleet's maintenance windows (see the module docs).
pub struct Book {
    file: Vec<Entry>,
    /// Each instance's tags, by name (scopes by tag).
    tags: BTreeMap<String, BTreeMap<String, String>>,
    /// The instances' names, as configured.
    names: Vec<String>,
    store: Option<Store>,
    state: Mutex<State>,
    generation: AtomicU64,
}

const SCHEMA: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS maintenance_added (id TEXT PRIMARY KEY, name TEXT NOT NULL, reason TEXT NOT NULL, \
     scope TEXT NOT NULL, zone TEXT NOT NULL, start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, \"by\" TEXT NOT NULL, \
     at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS maintenance_ended (id TEXT NOT NULL, start_ms INTEGER NOT NULL, \"by\" TEXT NOT NULL, \
     at INTEGER NOT NULL, why TEXT NOT NULL, PRIMARY KEY (id, start_ms))",
];

fn from_ms(v: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(v).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// How far ahead the triage page lists windows to come, and back those that ended.
const AHEAD_DAYS: i64 = 7;
const BEHIND_HOURS: i64 = 24;

impl Book {
    /// The file's windows (`instances`: each configured instance's name and tags), and what
    /// the store holds (`None`: kept in memory only).
    pub async fn open(
        config: &[MaintenanceConfig],
        instances: &[crate::config::InstanceConfig],
        store: Option<Store>,
    ) -> Book {
        let file = config
            .iter()
            .map(|m| Entry {
                id: format!("file:{}", m.name),
                name: m.name.clone(),
                reason: m.reason.clone(),
                zone: m.zone,
                when: m.when.clone(),
                scope: m.scope.clone(),
                line: Some(m.line),
                added: None,
            })
            .collect();
        let tags = instances.iter().map(|i| (i.name.clone(), i.tags.clone())).collect();
        let names = instances.iter().map(|i| i.name.clone()).collect();
        let book =
            Book { file, tags, names, store, state: Mutex::new(State::default()), generation: AtomicU64::new(0) };
        if let Some(store) = &book.store
            && let Some(pool) = store.sqlite()
        {
            for sql in SCHEMA {
                if let Err(e) = sqlx::query(sql).execute(pool).await {
                    tracing::warn!(error = %e, "maintenance: Sundial's store could not make its tables");
                }
            }
        }
        book.refresh().await;
        book
    }

    /// Take in what the store holds (another replica's changes among them).
    pub async fn refresh(&self) {
        let Some(store) = &self.store else { return };
        match Book::load(store).await {
            Ok(fresh) => {
                let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                if state.added != fresh.added || state.ended != fresh.ended {
                    *state = fresh;
                    self.generation.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "maintenance: Sundial's store could not be read; the windows known stay")
            }
        }
    }

    async fn load(store: &Store) -> Result<State, sqlx::Error> {
        use sqlx::Row;
        let mut state = State::default();
        on_db!(store, |pool| {
            let rows = sqlx::query(
                "SELECT id, name, reason, scope, zone, start_ms, end_ms, \"by\", at FROM maintenance_added ORDER BY at, id",
            )
            .fetch_all(pool)
            .await?;
            for r in rows {
                let id: String = r.try_get("id")?;
                let scope: String = r.try_get("scope")?;
                let zone: String = r.try_get("zone")?;
                let Ok(scope) = serde_json::from_str::<MaintenanceScope>(&scope) else {
                    tracing::warn!(window = %id, "maintenance: a window's scope in Sundial's store cannot be read; it is left out");
                    continue;
                };
                state.added.push(Entry {
                    id,
                    name: r.try_get("name")?,
                    reason: r.try_get("reason")?,
                    zone: Zone::from_name(&zone).unwrap_or(Zone::UTC),
                    when: When::Once(Window::new(from_ms(r.try_get("start_ms")?), from_ms(r.try_get("end_ms")?))),
                    scope,
                    line: None,
                    added: Some((r.try_get("by")?, from_ms(r.try_get("at")?))),
                });
            }
            let rows = sqlx::query("SELECT id, start_ms, \"by\", at, why FROM maintenance_ended ORDER BY at, id")
                .fetch_all(pool)
                .await?;
            for r in rows {
                state.ended.push(Ended {
                    id: r.try_get("id")?,
                    start: from_ms(r.try_get("start_ms")?),
                    by: r.try_get("by")?,
                    at: from_ms(r.try_get("at")?),
                    why: r.try_get("why")?,
                });
            }
        });
        Ok(state)
    }

    /// The instances a window may cover, as configured.
    pub fn instances(&self) -> &[String] {
        &self.names
    }

    /// Changes with every window added or ended (here, or taken in from another replica).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    fn entries(&self) -> Vec<Entry> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.file.iter().chain(&state.added).cloned().collect()
    }

    fn tags_of(&self, instance: &str) -> BTreeMap<String, String> {
        self.tags.get(instance).cloned().unwrap_or_default()
    }

    /// Each occurrence of `entry` overlapping `range`, cut short where it was ended early
    /// (one ended before it began is gone).
    fn occurrences(&self, entry: &Entry, ended: &[Ended], range: Window) -> Vec<(Window, Window)> {
        let (windows, _) = engine::windows(&entry.when, entry.zone, range);
        windows
            .into_iter()
            .filter_map(|w| {
                let cut = ended.iter().find(|e| e.id == entry.id && e.start == w.start).map(|e| e.at);
                let end = cut.map_or(w.end, |at| at.min(w.end));
                (end > w.start).then_some((w, Window::new(w.start, end)))
            })
            .collect()
    }

    /// The windows over `instance`'s jobs that overlap `range`, as the engine takes them.
    pub fn for_instance(&self, instance: &str, range: Window) -> Vec<Maintenance> {
        let tags = self.tags_of(instance);
        let ended = self.state.lock().unwrap_or_else(|e| e.into_inner()).ended.clone();
        let mut out = Vec::new();
        for e in self.entries().iter().filter(|e| e.scope.covers_instance(instance, &tags)) {
            for (_, w) in self.occurrences(e, &ended, range) {
                let label = if e.reason.is_empty() { e.name.clone() } else { format!("{}: {}", e.name, e.reason) };
                out.push(Maintenance { window: w, jobs: e.scope.jobs.clone(), label });
            }
        }
        out.sort_by_key(|m| m.window.start);
        out
    }

    /// The window that held a problem of `instance` (and `job`: id, name; `None` for an
    /// instance-wide problem, which only a window over all its jobs holds) open since
    /// `since`: of the windows covering it that were open at some moment from `since` to
    /// `now`, the one ending last. It holds the problem now when `until` is after `now`;
    /// otherwise alerts count their grace from its end. For many problems at once, see
    /// [`Book::holder`].
    pub fn holding(
        &self,
        instance: &str,
        job: Option<(&str, &str)>,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Option<Holding> {
        self.holder(since, now).holding(instance, job, since)
    }

    /// [`Book::holding`] for every problem of a judgement: the windows open at some moment
    /// from `since` (the oldest episode's start) to `now`, expanded once.
    pub fn holder(&self, since: DateTime<Utc>, now: DateTime<Utc>) -> Holder<'_> {
        let ended = self.state.lock().unwrap_or_else(|e| e.into_inner()).ended.clone();
        let span = Window::new(since.min(now), now + TimeDelta::seconds(1));
        let spans = self
            .entries()
            .into_iter()
            .flat_map(|e| {
                let windows: Vec<Window> = self.occurrences(&e, &ended, span).into_iter().map(|(_, w)| w).collect();
                windows.into_iter().map(move |w| (e.scope.clone(), e.name.clone(), w))
            })
            .collect();
        Holder { book: self, spans }
    }

    /// What the triage page lists at `now`: open windows, those to come within a week (the
    /// next of each recurring one), and those that ended in the last day (times in each
    /// window's zone).
    pub fn listing(&self, now: DateTime<Utc>) -> Vec<WindowRow> {
        let ended = self.state.lock().unwrap_or_else(|e| e.into_inner()).ended.clone();
        let range = Window::new(now - TimeDelta::hours(BEHIND_HOURS), now + TimeDelta::days(AHEAD_DAYS));
        let mut rows: Vec<(u8, DateTime<Utc>, WindowRow)> = Vec::new();
        for e in self.entries() {
            let point = |t| app::api::ssr::point(t, e.zone);
            let mut planned_shown = false;
            for (whole, w) in self.occurrences(&e, &ended, range) {
                let end_row = ended.iter().find(|x| x.id == e.id && x.start == whole.start);
                let (rank, state) = if w.contains(now) {
                    (0, "open")
                } else if w.start > now {
                    if planned_shown {
                        continue;
                    }
                    planned_shown = true;
                    (1, "planned")
                } else {
                    // Ended early by someone (who and why are listed), or simply over.
                    (2, if end_row.is_some() { "ended" } else { "past" })
                };
                rows.push((
                    rank,
                    w.start,
                    WindowRow {
                        id: e.id.clone(),
                        start_ms: whole.start.timestamp_millis(),
                        name: e.name.clone(),
                        reason: e.reason.clone(),
                        scope: e.scope.words(),
                        recurs: recurs_words(&e.when, e.zone),
                        start: point(w.start),
                        end: point(w.end),
                        state: state.to_owned(),
                        line: e.line,
                        added: e.added.clone().map(|(by, at)| (by, point(at))),
                        ended: end_row.map(|x| (x.by.clone(), point(x.at), x.why.clone())),
                    },
                ));
            }
        }
        rows.sort_by_key(|r| (r.0, r.1));
        rows.into_iter().map(|r| r.2).collect()
    }

    /// Add a window from the page's form, by `by` (an admin, or who the form says).
    pub async fn add(&self, form: &MaintenanceForm, by: &str, now: DateTime<Utc>) -> Result<(), ApiError> {
        let bad = |why: &str| ApiError::BadRequest(why.to_owned());
        let clip = |s: &str, n: usize| s.trim().chars().take(n).collect::<String>();
        let name = clip(&form.name, 80);
        let reason = clip(&form.reason, 500);
        if name.is_empty() || reason.is_empty() {
            return Err(bad("a window needs a name and a reason"));
        }
        let zone = match form.time_zone.trim() {
            "" => Zone::UTC,
            z => Zone::from_name(z).ok_or_else(|| bad("not a known time zone"))?,
        };
        let start = match form.start.trim() {
            "" => now,
            s => crate::config::instant_in(s, zone).ok_or_else(|| bad("not a start like 2026-11-28 22:00"))?,
        };
        if !WINDOW_LENGTHS.iter().any(|(v, _)| *v == form.duration.trim()) {
            return Err(bad("not a length offered"));
        }
        let length = humantime::parse_duration(form.duration.trim()).map_err(|_| bad("not a length offered"))?;
        let end = start + TimeDelta::from_std(length).map_err(|_| bad("not a length offered"))?;
        let instance = form.instance.trim();
        if !instance.is_empty() && !self.tags.contains_key(instance) {
            return Err(bad("no such instance"));
        }
        let scope = MaintenanceScope {
            instances: if instance.is_empty() { Vec::new() } else { vec![instance.to_owned()] },
            tags: BTreeMap::new(),
            jobs: form.jobs.split(',').map(str::trim).filter(|j| !j.is_empty()).map(|j| clip(j, 200)).collect(),
        };
        let by = crate::triage::who(by);
        let id = format!("added:{}", now.timestamp_micros());
        let entry = Entry {
            id: id.clone(),
            name,
            reason,
            zone,
            when: When::Once(Window::new(start, end)),
            scope,
            line: None,
            added: Some((by.clone(), now)),
        };
        if let Some(store) = &self.store {
            let scope = serde_json::to_string(&entry.scope).unwrap_or_else(|_| "{}".to_owned());
            let kept = on_db!(store, |pool| sqlx::query(
                "INSERT INTO maintenance_added (id, name, reason, scope, zone, start_ms, end_ms, \"by\", at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(&id)
            .bind(&entry.name)
            .bind(&entry.reason)
            .bind(scope)
            .bind(zone.name())
            .bind(start.timestamp_millis())
            .bind(end.timestamp_millis())
            .bind(&by)
            .bind(now.timestamp_millis())
            .execute(pool)
            .await
            .map(|_| ()));
            kept.map_err(|e| {
                tracing::warn!(error = %e, "maintenance: could not keep a window");
                ApiError::Transport("the window could not be kept in Sundial's store".into())
            })?;
        }
        tracing::info!(window = %entry.name, by = %by, scope = %entry.scope.words(), %start, %end, "maintenance: a window was added");
        self.state.lock().unwrap_or_else(|e| e.into_inner()).added.push(entry);
        self.generation.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// End an open occurrence now (or cancel one to come), by `by`, saying why.
    pub async fn end(&self, form: &MaintenanceEndForm, by: &str, now: DateTime<Utc>) -> Result<(), ApiError> {
        let why = form.why.trim().chars().take(500).collect::<String>();
        if why.is_empty() {
            return Err(ApiError::BadRequest("ending a window needs a reason".into()));
        }
        let start = from_ms(form.start_ms);
        let ended = self.state.lock().unwrap_or_else(|e| e.into_inner()).ended.clone();
        let entry = self.entries().into_iter().find(|e| e.id == form.id);
        let live = entry.as_ref().is_some_and(|e| {
            self.occurrences(e, &ended, Window::new(start, start + TimeDelta::seconds(1)))
                .iter()
                .any(|(whole, w)| whole.start == start && w.end > now)
        });
        if !live {
            return Err(ApiError::NotFound { what: "open or planned maintenance window".into() });
        }
        let by = crate::triage::who(by);
        let row = Ended { id: form.id.clone(), start, by: by.clone(), at: now.max(start), why };
        if let Some(store) = &self.store {
            let kept = on_db!(store, |pool| sqlx::query(
                "INSERT INTO maintenance_ended (id, start_ms, \"by\", at, why) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (id, start_ms) DO NOTHING",
            )
            .bind(&row.id)
            .bind(form.start_ms)
            .bind(&row.by)
            .bind(row.at.timestamp_millis())
            .bind(&row.why)
            .execute(pool)
            .await
            .map(|_| ()));
            kept.map_err(|e| {
                tracing::warn!(error = %e, "maintenance: could not keep the end of a window");
                ApiError::Transport("the end could not be kept in Sundial's store".into())
            })?;
        }
        tracing::info!(window = %form.id, by = %by, why = %row.why, "maintenance: a window was ended");
        self.state.lock().unwrap_or_else(|e| e.into_inner()).ended.push(row);
        self.generation.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// "Saturday 22:00–02:00 (Europe/London)", "cron 0 22 * * 6 for 4 h (UTC)", "once".
fn recurs_words(when: &When, zone: Zone) -> String {
    match when {
        When::Once(_) => "once".to_owned(),
        When::Weekly { days, from, to } => {
            format!("{} {}–{} ({zone})", engine::days_words(days), from.format("%H:%M"), to.format("%H:%M"))
        }
        When::Cron { expr, length_secs } => {
            format!(
                "cron {expr} for {} ({zone})",
                humantime::format_duration(std::time::Duration::from_secs(*length_secs as u64))
            )
        }
    }
}
