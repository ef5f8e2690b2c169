//! Maintenance windows: the fleet file's (`[[maintenance]]`) and those an admin adds or ends
//! from the triage page, kept in Sundial's store with who, when and why.
//!
//! The [`Book`] answers three questions, each from plain data:
//! - which windows cover an instance's jobs over a span ([`Book::for_instance`]): every
//!   analysis gets them in its input, so a due run not made inside one is "maintenance"
//!   (`sundial_engine::fleet::analyze`), on every page, in the API and in the metrics alike;
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
use crate::store::Store;
use crate::store::maintenance::{self as stored, AddedRow, EndedRow};
use chrono::{DateTime, TimeDelta, Utc};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use sundial_engine::maintenance::{self as engine, Maintenance, When};
use sundial_engine::{Window, Zone};
use sundial_model::ApiError;
use sundial_model::forms::{Field, MAX_JOBS, Refusal, START_HORIZON_DAYS, START_TOLERANCE_MINUTES, take};
use sundial_model::triage::{MaintenanceEndForm, MaintenanceForm, WINDOW_LENGTHS, WindowRow};

/// One window as declared (in the file, or added from the page).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// `file:<name>`, or `added:<ms>-<random>` for one added from the page (never two alike,
    /// whatever the clock says).
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

/// The window that held a problem (see [`Book::holding`]; the model's, which pages show).
pub use sundial_model::view::Holding;

/// One occurrence of a window: what was declared, the whole span, the span it held (cut
/// short when someone ended it early) and who ended it.
#[derive(Clone, Debug)]
pub struct Occurrence {
    pub entry: Entry,
    pub whole: Window,
    pub span: Window,
    pub ended: Option<Ended>,
}

impl Occurrence {
    /// `open`, `planned`, `ended` (early, by someone), `cancelled` (ended before it began) or
    /// `past` (it ran its course).
    pub fn state(&self, now: DateTime<Utc>) -> &'static str {
        if self.span.is_empty() {
            "cancelled"
        } else if self.span.contains(now) {
            "open"
        } else if self.span.start > now {
            "planned"
        } else if self.ended.is_some() {
            "ended"
        } else {
            "past"
        }
    }

    fn rank(&self, now: DateTime<Utc>) -> u8 {
        match self.state(now) {
            "open" => 0,
            "planned" => 1,
            _ => 2,
        }
    }

    /// Whether it covers `job` (id, name) of `instance` (tagged `tags`).
    pub fn covers(&self, instance: &str, tags: &BTreeMap<String, String>, job: (&str, &str)) -> bool {
        self.entry.scope.covers(instance, tags, Some(job))
    }

    /// As the pages list it (times in the window's zone); `runs`: the due runs it made
    /// maintenance, when counted.
    pub fn row(&self, now: DateTime<Utc>, runs: Option<usize>) -> WindowRow {
        let e = &self.entry;
        let point = |t| sundial_model::ssr::point(t, e.zone);
        WindowRow {
            id: e.id.clone(),
            start_ms: self.whole.start.timestamp_millis(),
            name: e.name.clone(),
            reason: e.reason.clone(),
            scope: e.scope.words(),
            recurs: recurs_words(&e.when, e.zone),
            // A cancelled one is shown over the span it would have held.
            start: point(if self.span.is_empty() { self.whole.start } else { self.span.start }),
            end: point(if self.span.is_empty() { self.whole.end } else { self.span.end }),
            state: self.state(now).to_owned(),
            line: e.line,
            added: e.added.clone().map(|(by, at)| (by, point(at))),
            ended: self.ended.as_ref().map(|x| (x.by.clone(), point(x.at), x.why.clone())),
            runs,
        }
    }
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

fn from_ms(v: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(v).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// `t` as the store keeps it and the page's forms send it back: whole milliseconds (a leap
/// second, `23:59:60`, is the next second's first instant). Every time a window holds is
/// exact so, in memory as in the store, so that the occurrence a page offers to end is the
/// one that ends.
pub fn exact(t: DateTime<Utc>) -> DateTime<Utc> {
    from_ms(t.timestamp_millis())
}

/// A new window's id: when it was added and 64 random bits (two added at the same instant,
/// by one replica or two, never share one).
fn new_id(now: DateTime<Utc>) -> String {
    let mut bits = [0u8; 8];
    // Without the system's randomness (never on Linux), the clock's nanoseconds still differ.
    if getrandom::fill(&mut bits).is_err() {
        bits = u64::from(now.timestamp_subsec_nanos()).to_be_bytes();
    }
    format!("added:{}-{}", now.timestamp_millis(), hex::encode(bits))
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
        let (added, ended) = stored::load(store).await?;
        let mut state = State::default();
        for r in added {
            let Ok(scope) = serde_json::from_str::<MaintenanceScope>(&r.scope) else {
                tracing::warn!(window = %r.id, "maintenance: a window's scope in Sundial's store cannot be read; it is left out");
                continue;
            };
            state.added.push(Entry {
                id: r.id,
                name: r.name,
                reason: r.reason,
                zone: Zone::from_name(&r.zone).unwrap_or(Zone::UTC),
                when: When::Once(Window::new(from_ms(r.start_ms), from_ms(r.end_ms))),
                scope,
                line: None,
                added: Some((r.by, from_ms(r.at))),
            });
        }
        for r in ended {
            state.ended.push(Ended { id: r.id, start: from_ms(r.start_ms), by: r.by, at: from_ms(r.at), why: r.why });
        }
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

    pub fn tags_of(&self, instance: &str) -> BTreeMap<String, String> {
        self.tags.get(instance).cloned().unwrap_or_default()
    }

    /// Each occurrence of `entry` overlapping `range`, cut short where it was ended early
    /// (one ended before it began is gone).
    fn occurrences(&self, entry: &Entry, ended: &[Ended], range: Window) -> Vec<(Window, Window)> {
        let mut all = Book::occurrences_cut(entry, ended, range);
        all.retain(|(_, w)| !w.is_empty());
        all
    }

    /// The same, with those ended before they began (their span empty).
    fn occurrences_cut(entry: &Entry, ended: &[Ended], range: Window) -> Vec<(Window, Window)> {
        let (windows, _) = engine::windows(&entry.when, entry.zone, range);
        windows
            .into_iter()
            .map(|w| {
                let cut = ended.iter().find(|e| e.id == entry.id && e.start == w.start).map(|e| e.at);
                let end = cut.map_or(w.end, |at| at.min(w.end)).max(w.start);
                (w, Window::new(w.start, end))
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
        let range = Window::new(now - TimeDelta::hours(BEHIND_HOURS), now + TimeDelta::days(AHEAD_DAYS));
        let mut planned_shown = std::collections::HashSet::new();
        self.occurrences_over(range, now)
            .into_iter()
            .filter(|o| !o.span.is_empty())
            .filter(|o| o.state(now) != "planned" || planned_shown.insert(o.entry.id.clone()))
            .map(|o| o.row(now, None))
            .collect()
    }

    /// Every window that changes what a page or the API can show: each occurrence of the
    /// fleet file's over `reach` (the days pages reach back, and the week ahead the triage
    /// page lists), and every window ever added from the page (nothing is deleted), whenever
    /// it was; open first, then to come, then the rest newest first.
    pub fn history(&self, reach: Window, now: DateTime<Utc>) -> Vec<Occurrence> {
        let ended = self.state.lock().unwrap_or_else(|e| e.into_inner()).ended.clone();
        let mut out = Vec::new();
        for e in self.entries() {
            // An added window is once: all of it, whenever it was (a recurring one over `reach`).
            let range = match (&e.when, &e.added) {
                (When::Once(w), Some(_)) => *w,
                _ => reach,
            };
            for (whole, span) in Book::occurrences_cut(&e, &ended, range) {
                let end_row = ended.iter().find(|x| x.id == e.id && x.start == whole.start).cloned();
                out.push(Occurrence { entry: e.clone(), whole, span, ended: end_row });
            }
        }
        // Open, then to come (soonest first), then the rest (latest first).
        out.sort_by_key(|o| {
            let rank = o.rank(now);
            (rank, if rank < 2 { o.span.start.timestamp_millis() } else { -o.whole.start.timestamp_millis() })
        });
        out
    }

    /// Every occurrence of every window overlapping `range`, cut short where it was ended
    /// early: open first, then to come, then over (each by its start).
    fn occurrences_over(&self, range: Window, now: DateTime<Utc>) -> Vec<Occurrence> {
        let ended = self.state.lock().unwrap_or_else(|e| e.into_inner()).ended.clone();
        let mut out = Vec::new();
        for e in self.entries() {
            for (whole, span) in Book::occurrences_cut(&e, &ended, range) {
                let end_row = ended.iter().find(|x| x.id == e.id && x.start == whole.start).cloned();
                out.push(Occurrence { entry: e.clone(), whole, span, ended: end_row });
            }
        }
        out.sort_by_key(|o| (o.rank(now), o.span.start));
        out
    }

    /// Add a window from the page's form, by `by` (an admin, or who the form says). Every
    /// field is bounded ([`sundial_model::forms`]); the window starts now or later (a start up to
    /// [`START_TOLERANCE_MINUTES`] ago starts now: no past run changes), within
    /// [`START_HORIZON_DAYS`], and lasts a length the form offers (a day at most). A past
    /// window is the fleet file's to declare.
    pub async fn add(&self, form: &MaintenanceForm, by: &str, now: DateTime<Utc>) -> Result<(), ApiError> {
        let now = exact(now);
        let name = take(Field::Name, &form.name, true).map_err(ApiError::from)?;
        let reason = take(Field::Reason, &form.reason, true).map_err(ApiError::from)?;
        let by = sundial_model::forms::who(by).map_err(ApiError::from)?;
        let zone = match take(Field::Zone, &form.time_zone, false).map_err(ApiError::from)?.as_str() {
            "" => Zone::UTC,
            z => Zone::from_name(z).ok_or(ApiError::from(Refusal::BadZone))?,
        };
        let typed = match take(Field::Start, &form.start, false).map_err(ApiError::from)?.as_str() {
            "" => now,
            s => exact(crate::config::instant_in(s, zone).ok_or(ApiError::from(Refusal::BadStart))?),
        };
        if typed < now - TimeDelta::minutes(START_TOLERANCE_MINUTES) {
            return Err(ApiError::from(Refusal::PastStart));
        }
        if typed > now + TimeDelta::days(START_HORIZON_DAYS) {
            return Err(ApiError::from(Refusal::FarStart));
        }
        let length = WINDOW_LENGTHS
            .iter()
            .find(|(v, _)| *v == form.duration.trim())
            .and_then(|(v, _)| humantime::parse_duration(v).ok())
            .and_then(|l| TimeDelta::from_std(l).ok())
            .ok_or(ApiError::from(Refusal::BadLength))?;
        // A start a little before now: from now to the end the form said.
        let (start, end) = (typed.max(now), typed + length);
        let instance = take(Field::Instance, &form.instance, false).map_err(ApiError::from)?;
        if !instance.is_empty() && !self.tags.contains_key(&instance) {
            return Err(ApiError::from(Refusal::BadInstance));
        }
        let jobs: Vec<String> = take(Field::Jobs, &form.jobs, false)
            .map_err(ApiError::from)?
            .split(',')
            .map(str::trim)
            .filter(|j| !j.is_empty())
            .map(str::to_owned)
            .collect();
        if jobs.len() > MAX_JOBS {
            return Err(ApiError::from(Refusal::TooManyJobs));
        }
        let scope = MaintenanceScope {
            instances: if instance.is_empty() { Vec::new() } else { vec![instance] },
            tags: BTreeMap::new(),
            jobs,
        };
        let id = new_id(now);
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
            let row = AddedRow {
                id: id.clone(),
                name: entry.name.clone(),
                reason: entry.reason.clone(),
                scope,
                zone: zone.name().to_owned(),
                start_ms: start.timestamp_millis(),
                end_ms: end.timestamp_millis(),
                by: by.clone(),
                at: now.timestamp_millis(),
            };
            let kept = stored::add(store, &row).await;
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
        let now = exact(now);
        let why = take(Field::Why, &form.why, true).map_err(ApiError::from)?;
        let by = sundial_model::forms::who(by).map_err(ApiError::from)?;
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
        let row = Ended { id: form.id.clone(), start, by: by.clone(), at: now.max(start), why };
        if let Some(store) = &self.store {
            let ended = EndedRow {
                id: row.id.clone(),
                start_ms: form.start_ms,
                by: row.by.clone(),
                at: row.at.timestamp_millis(),
                why: row.why.clone(),
            };
            let kept = stored::end(store, &ended).await;
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
