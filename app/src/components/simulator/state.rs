//! The simulator's whole state, and every edit to it, as plain data: one [`State`], changed by
//! [`State::edit`] (a control's id and its value, as the browser reports it) and read back by
//! [`State::outputs`] (HTML for each result region), [`State::controls`] (what each control
//! shows) and [`State::query`] (the URL).
//!
//! The browser glue (`live.rs`) only moves strings between the DOM and this; the server renders
//! the first page from the same state. So the page's behaviour is tested natively here.
use super::model::{self, Instance, Preview, SimSetup};
pub use super::model::{WEEKDAYS, columns, text_of};
use super::render;
use crate::engine::edit::{self, Dialect, Row, Target};
use crate::engine::{AgentSchedule, Diagnostic, Schedule, Zone};
use chrono::{DateTime, Utc};
use serde_json::Value;

/// A plausible row for each dialect, for a fresh start or a dialect switch.
pub fn example_row(d: Dialect) -> &'static str {
    match d {
        Dialect::Agent => {
            r#"{"enabled":1,"freq_type":4,"freq_interval":1,"freq_subday_type":1,"freq_subday_interval":0,"freq_relative_interval":0,"freq_recurrence_factor":0,"active_start_date":20260101,"active_end_date":99991231,"active_start_time":20000,"active_end_time":235959}"#
        }
        Dialect::Cron => r#"{"jobid":1,"jobname":"nightly-vacuum","schedule":"0 2 * * *","active":true}"#,
        Dialect::MysqlEvent => {
            r#"{"EVENT_SCHEMA":"ops","EVENT_NAME":"purge_sessions","EVENT_TYPE":"RECURRING","EXECUTE_AT":null,"INTERVAL_VALUE":"1","INTERVAL_FIELD":"DAY","STARTS":"2026-01-01 02:00:00","ENDS":null,"STATUS":"ENABLED","ON_COMPLETION":"NOT PRESERVE","TIME_ZONE":"SYSTEM"}"#
        }
        Dialect::JobTable => {
            r#"{"job_id":1,"job_owner":"etl","job_name":"nightly_load","job_schedule_start":"2026-01-01 02:00:00","job_schedule_finish":null,"job_schedule_interval":3600,"job_status":"ENABLED"}"#
        }
        Dialect::ServiceBroker => {
            r#"{"ID":1,"JobName":"Refresh statistics","JobScheduleId":1,"ValidFrom":"2026-01-01 00:00:00","IsEnabled":1,"FrequencyType":1,"Frequency":1,"RunAtInSecondsFromMidnight":7200}"#
        }
        Dialect::Primentra => {
            r#"{"Id":1,"EntityId":10,"ProcessingMode":"scheduled","ScheduleType":"interval","IntervalMinutes":60,"IsEnabled":1,"LastCompletedAt":"2026-01-01 00:00:00"}"#
        }
        Dialect::PgAgent => {
            r#"{"jscid":1,"jscjobid":1,"jscname":"nightly","jscenabled":true,"jscstart":"2026-01-01 00:00:00+00","jscend":null,"jscminutes":"{t,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f}","jschours":"{f,f,t,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f}","jscweekdays":"{f,f,f,f,f,f,f}","jscmonthdays":"{f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f}","jscmonths":"{f,f,f,f,f,f,f,f,f,f,f,f}"}"#
        }
    }
}

/// JSON pretty-printed, or the text as it is when it is not JSON.
pub fn pretty(json: &str) -> String {
    serde_json::from_str::<Value>(json)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| json.to_owned())
}

/// `fresh`'s columns written over `old`'s (matched case-insensitively), other columns kept.
pub fn merge_row(old: &str, fresh: &str) -> String {
    let (Ok(Value::Object(mut old)), Ok(Value::Object(fresh))) =
        (serde_json::from_str::<Value>(old), serde_json::from_str::<Value>(fresh))
    else {
        return pretty(fresh);
    };
    for (k, v) in fresh {
        let key = old.keys().find(|o| o.eq_ignore_ascii_case(&k)).cloned().unwrap_or(k);
        old.insert(key, v);
    }
    serde_json::to_string_pretty(&Value::Object(old)).unwrap_or_default()
}

/// The text typed into a column's field, as JSON: empty is NULL, a number stays a number when
/// the column held one (or nothing), anything else is text.
fn value_of(text: &str, was: &Value) -> Value {
    let t = text.trim();
    if t.is_empty() {
        return Value::Null;
    }
    match was {
        Value::Number(_) | Value::Null | Value::Bool(_) => match serde_json::from_str::<Value>(t) {
            Ok(v @ (Value::Number(_) | Value::Bool(_))) => v,
            _ => Value::String(text.to_owned()),
        },
        _ => Value::String(text.to_owned()),
    }
}

/// Set one column of the row's JSON (the row must be an object; otherwise nothing changes).
/// The column's type is read from `base` (the row before the column editor touched it), so
/// the states a value passes through while typed ("1", "1a", "1") do not change it.
pub fn set_column(json: &str, base: &str, column: &str, text: &str) -> Option<String> {
    let Value::Object(mut row) = serde_json::from_str::<Value>(json).ok()? else { return None };
    let key = row.keys().find(|k| k.eq_ignore_ascii_case(column)).cloned().unwrap_or_else(|| column.to_owned());
    let was = match serde_json::from_str::<Value>(base) {
        Ok(Value::Object(b)) => b.into_iter().find(|(k, _)| k.eq_ignore_ascii_case(column)).map(|(_, v)| v),
        _ => None,
    }
    .or_else(|| row.get(&key).cloned())
    .unwrap_or(Value::Null);
    row.insert(key, value_of(text, &was));
    serde_json::to_string_pretty(&Value::Object(row)).ok()
}

/// Set slot `i` of a pgAgent `bool[]` column (its box in the column editor): the column
/// becomes a JSON array of booleans, all false where it was absent or empty. Nothing changes
/// when the column holds something else (the field shows it as text then).
pub fn set_slot(json: &str, dialect: Dialect, column: &str, i: usize, on: bool) -> Option<String> {
    let Value::Object(mut row) = serde_json::from_str::<Value>(json).ok()? else { return None };
    let (n, _) = super::render::slots(dialect, column)?;
    let (key, was) = row
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(column))
        .map_or_else(|| (column.to_owned(), String::new()), |(k, v)| (k.clone(), text_of(v)));
    let mut set = super::render::slot_values(&was, n)?;
    *set.get_mut(i)? = on;
    row.insert(key, Value::Array(set.into_iter().map(Value::Bool).collect()));
    serde_json::to_string_pretty(&Value::Object(row)).ok()
}

/// yyyymmdd → `YYYY-MM-DD` (empty when it is no date).
pub fn date_text(v: i64) -> String {
    crate::engine::agent::date_from_int(v)
        .map(|d| {
            format!(
                "{:04}-{:02}-{:02}",
                chrono::Datelike::year(&d),
                chrono::Datelike::month(&d),
                chrono::Datelike::day(&d)
            )
        })
        .unwrap_or_default()
}
fn date_int(s: &str) -> Option<i64> {
    let mut p = s.trim().splitn(3, '-');
    let (y, m, d): (i64, i64, i64) = (p.next()?.parse().ok()?, p.next()?.parse().ok()?, p.next()?.parse().ok()?);
    Some(y * 10000 + m * 100 + d)
}
/// hhmmss → `HH:MM:SS`.
pub fn time_text(v: i64) -> String {
    if (0..=235959).contains(&v) && v % 100 < 60 && (v / 100) % 100 < 60 {
        format!("{:02}:{:02}:{:02}", v / 10000, (v / 100) % 100, v % 100)
    } else {
        String::new()
    }
}
fn time_int(s: &str) -> Option<i64> {
    let mut p = s.trim().split(':');
    let h: i64 = p.next()?.parse().ok()?;
    let m: i64 = p.next()?.parse().ok()?;
    let sec: i64 = p.next().map(str::parse).transpose().ok()?.unwrap_or(0);
    Some(h * 10000 + m * 100 + sec)
}
fn int(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

/// Whether an `<input>` of this type reports its edits on `change` (boxes, radios) rather than
/// on every `input` (every other field, the zone and the column editor's included: the page
/// recomputes as you type; a zone's rules are fetched once its name is whole, [`whole_zone`]).
pub fn reports_on_change(kind: &str, _id: &str) -> bool {
    matches!(kind, "checkbox" | "radio")
}

/// Whether `name`, typed so far, is a whole zone name of `known` (the zone box's suggestions:
/// every zone the server has): its rules are worth fetching before the field is left.
pub fn whole_zone(name: &str, known: impl Fn(&str) -> bool) -> bool {
    let name = name.trim();
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'))
        && (Zone::from_name(name).is_some() || known(name))
}

/// What a control shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    Value(String),
    Checked(bool),
}

/// The whole page state.
pub struct State {
    pub dialect: Dialect,
    pub json: String,
    /// The row as it was before the column editor's edits (their values' types).
    pub base: String,
    pub parsed: Result<Row, Vec<Diagnostic>>,
    pub after: String,
    pub count: String,
    pub days: String,
    pub tz: String,
    pub zone: Zone,
    pub zone_error: Option<String>,
    pub pg_cron: Option<(u32, u32)>,
    pub now: DateTime<Utc>,
    /// The job and its instance, when the page was opened for one.
    pub job: Option<(model::SimJob, Instance)>,
    pub current: Preview,
    pub last_valid: Option<Preview>,
    /// The edited schedule's risks over [`model::RISK_DAYS`] from "runs after" (none while the
    /// row is invalid).
    pub risks: Vec<crate::engine::risks::Risk>,
    /// Where the risks stopped looking, when a frequent schedule's runs cut the horizon short.
    pub risks_until: Option<DateTime<Utc>>,
    /// Primentra's test button: the queue state entered (pending rows, oldest row's age in
    /// minutes, `LastTriggerCheck` override).
    pub queue: [String; 3],
}

/// What an edit changed, so the page redraws only that.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changed {
    /// The row's JSON changed: the controls follow it (except the one being edited).
    pub row: bool,
    /// The dialect changed: the column editor is redrawn.
    pub dialect: bool,
    /// A zone not known in the browser yet was chosen: fetch its rules.
    pub fetch_zone: Option<()>,
    /// "Runs after" was rewritten (the zone changed): the field follows.
    pub after: bool,
}

impl State {
    pub fn new(setup: &SimSetup) -> State {
        let dialect = Dialect::parse(&setup.dialect).unwrap_or(Dialect::Agent);
        let now = DateTime::<Utc>::from_timestamp_millis(setup.job.as_ref().map(|j| j.now_ms).unwrap_or(setup.now_ms))
            .unwrap_or_default();
        let mut s = State {
            dialect,
            json: pretty(&setup.row),
            base: pretty(&setup.row),
            parsed: Err(Vec::new()),
            after: setup.after.clone(),
            count: setup.count.to_string(),
            days: setup.days.to_string(),
            tz: setup.rules.name().to_owned(),
            zone: Zone::Rules(setup.rules.clone().leak()),
            zone_error: None,
            pg_cron: setup.pg_cron,
            now,
            job: setup.job.clone().map(|j| {
                let i = model::read_job(&j);
                (j, i)
            }),
            current: Preview::default(),
            last_valid: None,
            risks: Vec::new(),
            risks_until: None,
            queue: ["0".into(), "0".into(), String::new()],
        };
        s.recompute();
        s
    }

    fn agent(&self) -> Option<AgentSchedule> {
        match &self.parsed {
            Ok(Row { schedule: Schedule::Agent(a), .. }) => Some(a.clone()),
            _ => None,
        }
    }

    fn set_agent(&mut self, f: impl FnOnce(&mut AgentSchedule)) {
        if let Some(mut a) = self.agent() {
            f(&mut a);
            self.json = merge_row(&self.json, &edit::to_row(&Schedule::Agent(a)));
        }
    }

    /// Apply one control's new value (`checked` for checkboxes and radios).
    pub fn edit(&mut self, id: &str, value: &str, checked: bool) -> Changed {
        let mut changed = Changed::default();
        let before = self.json.clone();
        match id {
            "sim-dialect" => {
                if let Some(d) = Dialect::parse(value).filter(|d| *d != self.dialect && self.job.is_none()) {
                    self.dialect = d;
                    self.json = pretty(example_row(d));
                    changed.dialect = true;
                }
            }
            "sim-tz" => {
                let name = value.trim().to_owned();
                if name != self.tz {
                    self.tz = name.clone();
                    match Zone::from_name(&name) {
                        Some(z) => {
                            changed.after = self.move_to(z);
                            self.zone_error = None;
                        }
                        None => changed.fetch_zone = Some(()),
                    }
                }
            }
            "sim-after" => self.after = value.to_owned(),
            "sim-count" => self.count = value.to_owned(),
            "sim-impact-days" => self.days = value.to_owned(),
            "sim-pgcron" => {
                self.pg_cron = value.split_once('.').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
            }
            "schedule-json" => self.json = value.to_owned(),
            "sim-dry-pending" => self.queue[0] = value.to_owned(),
            "sim-dry-age" => self.queue[1] = value.to_owned(),
            "sim-dry-check" => self.queue[2] = value.to_owned(),
            _ if id.starts_with("col-") => {
                let col = &id[4..];
                let slot = col.split_once('.').and_then(|(c, i)| Some((c, i.parse::<usize>().ok()?)));
                let j = match slot {
                    Some((col, i)) => set_slot(&self.json, self.dialect, col, i, checked),
                    None => set_column(&self.json, &self.base, col, value),
                };
                if let Some(j) = j {
                    self.json = j;
                }
            }
            _ => self.edit_agent(id, value, checked),
        }
        changed.row = self.json != before;
        if changed.row && !id.starts_with("col-") {
            self.base = self.json.clone();
        }
        self.recompute();
        changed
    }

    fn edit_agent(&mut self, id: &str, value: &str, checked: bool) {
        let n = int(value);
        match id {
            "sim-type" => {
                let v = n.unwrap_or(4);
                self.set_agent(|a| {
                    if v == 4 && matches!(a.freq_type, 4 | 8 | 16 | 32) {
                        return;
                    }
                    a.freq_type = v;
                    if v == 4 && a.freq_interval < 1 {
                        a.freq_interval = 1;
                    }
                    if v == 4 && a.freq_subday_type == 0 {
                        a.freq_subday_type = 1;
                    }
                });
            }
            "sim-occurs" => {
                let v = n.unwrap_or(4);
                self.set_agent(|a| {
                    a.freq_type = v;
                    match v {
                        4 => a.freq_interval = a.freq_interval.clamp(1, 365),
                        8 => {
                            a.freq_interval = if (1..=127).contains(&a.freq_interval) { a.freq_interval } else { 2 };
                            a.freq_recurrence_factor = a.freq_recurrence_factor.max(1);
                        }
                        16 => {
                            a.freq_interval = a.freq_interval.clamp(1, 31);
                            a.freq_recurrence_factor = a.freq_recurrence_factor.max(1);
                        }
                        _ => {
                            a.freq_interval = if (1..=10).contains(&a.freq_interval) { a.freq_interval } else { 2 };
                            a.freq_relative_interval = if [1, 2, 4, 8, 16].contains(&a.freq_relative_interval) {
                                a.freq_relative_interval
                            } else {
                                1
                            };
                            a.freq_recurrence_factor = a.freq_recurrence_factor.max(1);
                        }
                    }
                });
            }
            "sim-enabled" => self.set_agent(|a| a.enabled = i64::from(checked)),
            "sim-once" if checked => self.set_agent(|a| a.freq_subday_type = 1),
            "sim-every" if checked => self.set_agent(|a| {
                a.freq_subday_type = 4;
                a.freq_subday_interval = a.freq_subday_interval.max(1);
            }),
            "sim-no-end" => self.set_agent(|a| {
                a.active_end_date = if checked { 99991231 } else { a.active_start_date.max(20000101) + 10000 }
            }),
            "sim-once-date" | "sim-start-date" => {
                if let Some(v) = date_int(value) {
                    self.set_agent(|a| a.active_start_date = v);
                }
            }
            "sim-end-date" => {
                if let Some(v) = date_int(value) {
                    self.set_agent(|a| a.active_end_date = v);
                }
            }
            "sim-once-time" | "sim-at" | "sim-start-time" => {
                if let Some(v) = time_int(value) {
                    self.set_agent(|a| a.active_start_time = v);
                }
            }
            "sim-end-time" => {
                if let Some(v) = time_int(value) {
                    self.set_agent(|a| a.active_end_time = v);
                }
            }
            _ if id.starts_with("sim-wd-") => {
                if let Some(i) = WEEKDAYS.iter().position(|d| d.eq_ignore_ascii_case(&id[7..])) {
                    let bit = 1i64 << i;
                    self.set_agent(|a| {
                        a.freq_interval = if checked { a.freq_interval | bit } else { a.freq_interval & !bit }
                    });
                }
            }
            _ => {
                let Some(v) = n else { return };
                match id {
                    "sim-days" | "sim-dom" | "sim-relday" => self.set_agent(|a| a.freq_interval = v),
                    "sim-weeks" | "sim-months" | "sim-relmonths" => self.set_agent(|a| a.freq_recurrence_factor = v),
                    "sim-rel" => self.set_agent(|a| a.freq_relative_interval = v),
                    "sim-every-n" => self.set_agent(|a| a.freq_subday_interval = v),
                    "sim-unit" => self.set_agent(|a| a.freq_subday_type = v),
                    _ => {}
                }
            }
        }
    }

    /// A zone's rules arrived (or could not be had); true when "runs after" was rewritten.
    pub fn zone_rules(&mut self, name: &str, rules: Result<crate::engine::ZoneRules, String>) -> bool {
        if name != self.tz {
            return false;
        }
        let moved = match rules {
            Ok(r) => {
                self.zone_error = None;
                self.move_to(Zone::Rules(r.leak()))
            }
            Err(e) => {
                self.zone_error = Some(e);
                false
            }
        };
        self.recompute();
        moved
    }

    /// A zone the row itself names (a MySQL event's `TIME_ZONE`) whose rules the browser does not
    /// have yet: the zone box's zones are the row's zones too, so it fetches them
    /// ([`State::more_rules`]). `None` for `SYSTEM`, an offset, or a zone already known.
    pub fn wanted_zone(&self) -> Option<String> {
        let Ok(Row { schedule: Schedule::MysqlEvent(e), .. }) = &self.parsed else { return None };
        let z = e.time_zone.as_deref().map(str::trim).filter(|z| !z.is_empty())?;
        let offset = z.starts_with(['+', '-']);
        (!offset && !z.eq_ignore_ascii_case("SYSTEM") && Zone::from_name(z).is_none()).then(|| z.to_owned())
    }

    /// The rules of a zone the row names arrived ([`State::wanted_zone`]): known from now on.
    pub fn more_rules(&mut self, rules: crate::engine::ZoneRules) {
        rules.leak();
        self.recompute();
    }

    /// Change the zone keeping "runs after" the same instant: its wall-clock time in the old
    /// zone becomes the new zone's (true when it was rewritten).
    fn move_to(&mut self, zone: Zone) -> bool {
        let old = std::mem::replace(&mut self.zone, zone);
        let Some(local) = model::parse_local(&self.after) else { return false };
        let at = crate::engine::tz::local_to_instant(local, old);
        let moved = crate::engine::tz::to_local(at, zone).format(model::LOCAL_FORMAT).to_string();
        let changed = moved != self.after;
        self.after = moved;
        changed
    }

    fn recompute(&mut self) {
        self.parsed = edit::parse_row_full(self.dialect, &self.json);
        let mut form = Vec::new();
        let after = model::parse_local(&self.after);
        if after.is_none() {
            form.push(Diagnostic::error("after", &self.after, "must be a date and time, YYYY-MM-DDTHH:MM:SS"));
        }
        let count = match self.count.trim().parse::<usize>() {
            Ok(n @ 1..=model::MAX_COUNT) => n,
            _ => {
                form.push(Diagnostic::error(
                    "count",
                    &self.count,
                    format!("must be a number from 1 to {}", model::MAX_COUNT),
                ));
                model::DEFAULT_COUNT
            }
        };
        // Primentra's interval schedules count from the last run, or from now when it never
        // ran: a pasted row has neither column, so the page's now stands in.
        if let Ok(Row { schedule: Schedule::Primentra(c), .. }) = &mut self.parsed
            && c.last_run.is_none()
            && c.now.is_none()
        {
            c.now = Some(crate::engine::tz::to_local(self.now, self.zone).format("%Y-%m-%d %H:%M:%S").to_string());
        }
        let mut p = match &self.parsed {
            Err(errors) => Preview { errors: errors.clone(), ..Default::default() },
            Ok(row) => {
                let mut p = match after {
                    Some(a) => model::preview(&row.schedule, self.zone, a, count, self.pg_cron, self.now),
                    None => Preview { description: crate::engine::describe(&row.schedule), ..Default::default() },
                };
                if matches!(row.schedule, Schedule::Cron(_)) && row.active == Some(false) {
                    p.warnings.push(Diagnostic::warning(
                        "active",
                        "false",
                        "the job is inactive: pg_cron does not run it until active is true again",
                    ));
                }
                p
            }
        };
        if !form.is_empty() {
            p.runs.clear();
            p.errors.extend(form);
        }
        if p.is_valid() {
            self.last_valid = Some(p.clone());
        }
        self.current = p;
        (self.risks, self.risks_until) = self.risks_ahead(after);
    }

    /// The risks of the schedule as edited, from "runs after" (in the zone pg_cron evaluates it).
    fn risks_ahead(
        &self,
        after: Option<chrono::NaiveDateTime>,
    ) -> (Vec<crate::engine::risks::Risk>, Option<DateTime<Utc>>) {
        let (Some(after), Some(s), true) = (after, self.schedule(), self.current.is_valid()) else {
            return (Vec::new(), None);
        };
        let eval = model::evaluation_zone(self.dialect, self.zone, self.pg_cron);
        let at = crate::engine::tz::local_to_instant(after, self.zone);
        model::risks(s, eval, at, self.job.as_ref().map(|(_, i)| i))
    }

    /// The schedule as the row reads now.
    pub fn schedule(&self) -> Option<&Schedule> {
        self.parsed.as_ref().ok().map(|r| &r.schedule)
    }

    /// Why there is no statement to copy: the row does not read, or reads as a schedule the
    /// page calls invalid (the chosen pg_cron's rejection named).
    pub fn no_statement(&self) -> Option<String> {
        if self.current.is_valid() && self.schedule().is_some() {
            return None;
        }
        Some(match self.current.errors.iter().find(|d| d.message.contains(model::REJECTS)) {
            Some(d) => format!("No statement: {}.", d.message),
            None => "No statement: the schedule is invalid — fix the errors above.".to_owned(),
        })
    }

    /// The statement that applies the row (none while it is invalid).
    pub fn statement(&self) -> String {
        if self.no_statement().is_some() {
            return String::new();
        }
        let Some(s) = self.schedule() else { return String::new() };
        let original = self.job.as_ref().and_then(|(_, i)| i.original.as_ref());
        let target = original
            .map(|r| r.target.clone())
            .or_else(|| self.parsed.as_ref().ok().map(|r| r.target.clone()))
            .unwrap_or_else(|| Target::none(self.dialect));
        edit::apply_statement(original.map(|r| &r.schedule), s, &target)
    }

    /// A Primentra configuration in triggered mode: would the dispatcher fire now, for the
    /// queue state entered? The same answer as `sundial dry-run` (at the page's now, UTC).
    pub fn dry_run(&self) -> Option<Result<crate::engine::primentra::DryRun, Diagnostic>> {
        let Some(Schedule::Primentra(c)) = self.schedule() else { return None };
        if !c.processing_mode.as_deref().is_some_and(|m| m.trim().eq_ignore_ascii_case("triggered")) {
            return None;
        }
        let opt = |t: &String| Some(t.trim().to_owned()).filter(|t| !t.is_empty());
        let q = crate::engine::primentra::QueueState {
            pending_rows: opt(&self.queue[0]),
            oldest_row_age_minutes: opt(&self.queue[1]),
            oldest_row_created_at: None,
            last_trigger_check: opt(&self.queue[2]),
        };
        Some(crate::engine::primentra::dry_run(c, &q, self.now.naive_utc()))
    }

    /// The instance replay (for a job, when the row is valid).
    pub fn impact(&self) -> Option<crate::engine::replay::Impact> {
        let (_, inst) = self.job.as_ref()?;
        let s = self.schedule()?;
        if !self.current.is_valid() {
            return None;
        }
        let d = self.days.trim().parse::<u32>().ok().unwrap_or(model::DEFAULT_DAYS).clamp(1, model::MAX_DAYS);
        Some(model::impact(inst, s, self.zone, d))
    }

    /// Every result region's HTML, by element id.
    pub fn outputs(&self) -> Vec<(&'static str, String)> {
        let stale = if self.current.is_valid() { None } else { self.last_valid.as_ref() };
        let mut out = vec![
            ("schedule-diagnostics", render::diagnostics(&self.current.errors, "sim-diag-error")),
            ("sim-describe", render::describe(&self.current, stale)),
            ("sim-risks", render::risks(&self.risks, self.risks_until, self.zone)),
            ("next-runs", render::runs(&self.current.runs)),
            ("sim-never", render::never(&self.current)),
            ("sim-stale", render::stale(stale)),
            ("sim-warnings", render::diagnostics(&self.current.warnings, "sim-diag-warning")),
            ("sim-statement", render::escape(&self.statement())),
            ("sim-no-statement", self.no_statement().as_deref().map(render::escape).unwrap_or_default()),
            ("sim-after-zone", render::escape(self.zone.name())),
            ("sim-zone-error", self.zone_error.as_deref().map(render::escape).unwrap_or_default()),
            ("sim-dryrun", render::dry_run(self.dry_run().as_ref())),
        ];
        if self.job.is_some() {
            out.push(("sim-impact-body", self.impact().map(|i| render::impact(&i, self.zone)).unwrap_or_default()));
        }
        out
    }

    /// What each control shows, by id (the Agent dialog's from the row).
    pub fn controls(&self) -> Vec<(String, Shown)> {
        let mut c: Vec<(String, Shown)> = vec![
            ("sim-dialect".into(), Shown::Value(self.dialect.key().into())),
            ("schedule-json".into(), Shown::Value(self.json.clone())),
            ("sim-after".into(), Shown::Value(self.after.clone())),
        ];
        if let Some(a) = self.agent() {
            let v = |s: String| Shown::Value(s);
            let recurring = matches!(a.freq_type, 4 | 8 | 16 | 32);
            c.push(("sim-type".into(), v(if recurring { "4".into() } else { a.freq_type.to_string() })));
            c.push(("sim-enabled".into(), Shown::Checked(a.enabled != 0)));
            c.push(("sim-once-date".into(), v(date_text(a.active_start_date))));
            c.push(("sim-once-time".into(), v(time_text(a.active_start_time))));
            c.push(("sim-occurs".into(), v(a.freq_type.to_string())));
            c.push(("sim-days".into(), v(a.freq_interval.to_string())));
            c.push(("sim-weeks".into(), v(a.freq_recurrence_factor.to_string())));
            c.push(("sim-dom".into(), v(a.freq_interval.to_string())));
            c.push(("sim-months".into(), v(a.freq_recurrence_factor.to_string())));
            c.push(("sim-rel".into(), v(a.freq_relative_interval.to_string())));
            c.push(("sim-relday".into(), v(a.freq_interval.to_string())));
            c.push(("sim-relmonths".into(), v(a.freq_recurrence_factor.to_string())));
            for (i, d) in WEEKDAYS.iter().enumerate() {
                c.push((format!("sim-wd-{}", d.to_ascii_lowercase()), Shown::Checked(a.freq_interval & (1 << i) != 0)));
            }
            c.push(("sim-once".into(), Shown::Checked(a.freq_subday_type == 1)));
            c.push(("sim-every".into(), Shown::Checked(a.freq_subday_type != 1)));
            c.push(("sim-at".into(), v(time_text(a.active_start_time))));
            c.push(("sim-every-n".into(), v(a.freq_subday_interval.to_string())));
            c.push(("sim-unit".into(), v(a.freq_subday_type.to_string())));
            c.push(("sim-start-time".into(), v(time_text(a.active_start_time))));
            c.push(("sim-end-time".into(), v(time_text(a.active_end_time))));
            c.push(("sim-start-date".into(), v(date_text(a.active_start_date))));
            c.push(("sim-no-end".into(), Shown::Checked(a.active_end_date >= 99991231)));
            c.push(("sim-end-date".into(), v(date_text(a.active_end_date))));
        }
        c
    }

    /// Which parts of the form show, by element id.
    pub fn sections(&self) -> Vec<(&'static str, bool)> {
        let a = self.agent();
        let ft = a.as_ref().map(|a| a.freq_type).unwrap_or(0);
        let sd = a.as_ref().map(|a| a.freq_subday_type).unwrap_or(0);
        let agent = self.dialect == Dialect::Agent;
        vec![
            ("sim-sec-agent", agent),
            ("sim-sec-columns", !agent),
            ("sim-sec-pgcron", self.dialect == Dialect::Cron),
            ("sim-sec-once", ft == 1),
            ("sim-sec-recurring", matches!(ft, 4 | 8 | 16 | 32)),
            ("sim-sec-daily", ft == 4),
            ("sim-sec-weekly", ft == 8),
            ("sim-sec-weekdays", ft == 8),
            ("sim-sec-monthly", ft == 16),
            ("sim-sec-relative", ft == 32),
            ("sim-sec-at", sd == 1),
            ("sim-sec-every", sd != 1),
            ("sim-sec-end", a.as_ref().is_some_and(|a| a.active_end_date < 99991231)),
            ("sim-sec-dryrun", self.dry_run().is_some()),
        ]
    }

    /// The URL's query for this state.
    pub fn query(&self) -> Vec<(&'static str, String)> {
        let mut q = vec![
            ("dialect", self.dialect.key().to_owned()),
            ("after", self.after.clone()),
            ("count", self.count.clone()),
            ("tz", self.tz.clone()),
        ];
        if let Some((j, _)) = &self.job {
            q.push(("instance", j.instance.clone()));
            q.push(("job", j.id.clone()));
            q.push(("schedule", j.schedule_id.to_string()));
            q.push(("days", self.days.clone()));
        }
        if let Some((a, b)) = self.pg_cron {
            q.push(("pg_cron", format!("{a}.{b}")));
        }
        let row =
            serde_json::from_str::<Value>(&self.json).map(|v| v.to_string()).unwrap_or_else(|_| self.json.clone());
        q.push(("row", row));
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(dialect: Dialect) -> SimSetup {
        SimSetup {
            dialect: dialect.key().into(),
            row: example_row(dialect).into(),
            after: "2026-11-22T07:00:00".into(),
            count: 10,
            rules: crate::engine::ZoneRules::new("UTC", 0, Vec::new()).unwrap(),
            pg_cron: None,
            days: 7,
            job: None,
            notes: Vec::new(),
            now_ms: 1_795_000_000_000,
        }
    }

    #[test]
    fn every_example_row_reads_and_fires() {
        for d in Dialect::ALL {
            let s = State::new(&setup(d));
            assert!(s.parsed.is_ok(), "{d:?}: {:?}", s.parsed);
            assert!(s.current.errors.is_empty(), "{d:?}: {:?}", s.current.errors);
        }
    }

    #[test]
    fn a_control_rewrites_the_row_and_the_runs_follow() {
        let mut s = State::new(&setup(Dialect::Agent));
        assert_eq!(s.current.runs[0].local, "2026-11-23T02:00:00");
        let c = s.edit("sim-at", "04:30", false);
        assert!(c.row);
        assert!(s.json.contains("\"active_start_time\": 43000"), "{}", s.json);
        assert_eq!(s.current.runs[0].local, "2026-11-23T04:30:00");
        // Every 5 seconds: the Agent refuses, the row keeps it, the last valid runs stay apart.
        s.edit("sim-every", "", true);
        s.edit("sim-unit", "2", false);
        s.edit("sim-every-n", "5", false);
        assert!(s.current.runs.is_empty());
        assert!(
            s.current.errors.iter().any(|d| d.to_string().starts_with("freq_subday_interval = 5")),
            "{:?}",
            s.current.errors
        );
        assert!(s.last_valid.as_ref().is_some_and(|p| !p.runs.is_empty()));
        assert!(s.outputs().iter().any(|(id, html)| *id == "sim-stale" && html.contains("<time")));
    }

    #[test]
    fn typing_in_the_json_moves_the_dialog_and_a_bad_row_names_the_column() {
        let mut s = State::new(&setup(Dialect::Agent));
        s.edit("schedule-json", r#"{"freq_type": 8, "freq_interval": 42, "freq_recurrence_factor": 1, "freq_subday_type": 1, "active_start_date": 20260101}"#, false);
        let shown = s.controls();
        let get = |id: &str| shown.iter().find(|(i, _)| i == id).map(|(_, v)| v.clone());
        assert_eq!(get("sim-occurs"), Some(Shown::Value("8".into())));
        assert_eq!(get("sim-wd-monday"), Some(Shown::Checked(true)));
        assert_eq!(get("sim-wd-tuesday"), Some(Shown::Checked(false)));
        assert!(s.sections().contains(&("sim-sec-weekdays", true)));
        s.edit("schedule-json", r#"{"freq_type": "weekly"}"#, false);
        assert!(s.current.errors.iter().any(|d| d.field.as_deref() == Some("freq_type")), "{:?}", s.current.errors);
    }

    #[test]
    fn a_triggered_primentra_configuration_answers_the_test_button() {
        let mut s = State::new(&setup(Dialect::Primentra));
        assert!(s.dry_run().is_none(), "scheduled mode: no test button");
        s.edit("col-ProcessingMode", "triggered", false);
        s.edit("col-TriggerRowThreshold", "1000", false);
        s.edit("sim-dry-pending", "1200", false);
        let d = s.dry_run().unwrap().unwrap();
        assert!(d.would_fire);
        assert_eq!(d.reason, "Row threshold met: 1,200 rows >= threshold 1,000");
        s.edit("sim-dry-pending", "10", false);
        assert!(!s.dry_run().unwrap().unwrap().would_fire);
        assert!(s.sections().contains(&("sim-sec-dryrun", true)));
    }

    #[test]
    fn an_invalid_schedule_has_no_statement_and_says_why() {
        let mut s = State::new(&setup(Dialect::Agent));
        assert!(s.statement().contains("EXEC msdb.dbo.sp_update_schedule"), "{}", s.statement());
        assert_eq!(s.no_statement(), None);
        s.edit("sim-every", "", true);
        s.edit("sim-unit", "2", false);
        s.edit("sim-every-n", "5", false);
        assert_eq!(s.statement(), "");
        let out = s.outputs();
        let get = |id: &str| out.iter().find(|(i, _)| *i == id).map(|(_, h)| h.clone()).unwrap_or_default();
        assert_eq!(get("sim-statement"), "");
        assert_eq!(get("sim-no-statement"), "No statement: the schedule is invalid — fix the errors above.");
        // A JSON that does not read: no statement either.
        s.edit("schedule-json", "{", false);
        assert_eq!(s.statement(), "");
        assert!(s.no_statement().is_some());
    }

    #[test]
    fn a_pgagent_array_is_edited_a_box_at_a_time_and_the_runs_follow() {
        let mut s = State::new(&setup(Dialect::PgAgent));
        let boxes = render::columns(Dialect::PgAgent, &s.json);
        assert!(boxes.contains(r#"id="col-jscminutes.59""#), "a box per minute: {boxes}");
        assert!(boxes.contains(r#"id="col-jscmonthdays.31""#) && boxes.contains(">Last<"), "slot 32 is the last day");
        assert!(!boxes.contains(r#"id="col-jscminutes""#), "no text field for an array shown as boxes");
        // Only minute 15 of hour 03: one run a day at 03:15.
        for m in 0..60 {
            s.edit(&format!("col-jscminutes.{m}"), "on", m == 15);
        }
        for h in 0..24 {
            s.edit(&format!("col-jschours.{h}"), "on", h == 3);
        }
        let row: Value = serde_json::from_str(&s.json).unwrap();
        let minutes = row["jscminutes"].as_array().unwrap();
        assert_eq!(minutes.len(), 60);
        assert_eq!(minutes.iter().filter(|v| v.as_bool() == Some(true)).count(), 1);
        assert!(!s.current.runs.is_empty(), "{:?}", s.current.errors);
        assert!(s.current.runs.iter().all(|r| r.text.contains("03:15:00")), "{:?}", s.current.runs);
        assert!(s.statement().contains("UPDATE pgagent.pga_schedule"), "{}", s.statement());
        // The box unticked again: every hour at :15.
        s.edit("col-jschours.3", "on", false);
        assert!(s.current.runs.iter().any(|r| !r.text.contains("03:15:00")), "{:?}", s.current.runs);
        // A slot past the array's end, or a column that is no array, changes nothing.
        let before = s.json.clone();
        s.edit("col-jschours.24", "on", true);
        s.edit("col-jscname.0", "on", true);
        assert_eq!(s.json, before);
    }

    #[test]
    fn what_the_chosen_pg_cron_rejects_has_no_runs_and_no_statement() {
        let mut s = State::new(&setup(Dialect::Cron));
        s.edit("col-schedule", "30 seconds", false);
        s.edit("sim-pgcron", "1.5", false);
        assert!(!s.current.runs.is_empty());
        assert!(s.statement().contains("cron.alter_job"), "{}", s.statement());
        s.edit("sim-pgcron", "1.4", false);
        assert!(s.current.runs.is_empty(), "{:?}", s.current.runs);
        assert!(s.current.errors.iter().any(|d| d.message.contains("pg_cron 1.4")), "{:?}", s.current.errors);
        assert_eq!(s.statement(), "");
        let why = s.no_statement().unwrap_or_default();
        assert!(why.starts_with("No statement: pg_cron 1.4 has no 'N seconds' schedules"), "{why}");
        // '$' before 1.6.
        s.edit("col-schedule", "0 0 $ * *", false);
        s.edit("sim-pgcron", "1.5", false);
        assert!(s.current.runs.is_empty());
        assert!(s.no_statement().is_some_and(|w| w.contains("pg_cron 1.5 has no '$'")), "{:?}", s.no_statement());
        s.edit("sim-pgcron", "1.6", false);
        assert!(!s.current.runs.is_empty());
        assert_eq!(s.no_statement(), None);
    }

    #[test]
    fn a_zone_change_keeps_runs_after_the_same_instant() {
        let mut s = State::new(&setup(Dialect::Agent));
        assert_eq!(s.after, "2026-11-22T07:00:00");
        let c = s.edit("sim-tz", "America/New_York", false);
        assert!(c.after, "the field follows");
        assert_eq!(s.after, "2026-11-22T02:00:00", "07:00 UTC is 02:00 in New York");
        assert!(s.controls().contains(&("sim-after".into(), Shown::Value("2026-11-22T02:00:00".into()))));
        assert!(s.outputs().contains(&("sim-after-zone", "America/New_York".into())));
        // The first run after that instant is the same: 2026-11-23 02:00 New York.
        assert_eq!(s.current.runs[0].local, "2026-11-23T02:00:00");
        s.edit("sim-tz", "Asia/Kathmandu", false);
        assert_eq!(s.after, "2026-11-22T12:45:00", "UTC+5:45");
        // Rules fetched later: the same, when they arrive for the zone still chosen.
        let mut s = State::new(&setup(Dialect::Agent));
        s.tz = "Europe/Paris".into();
        let rules = crate::engine::ZoneRules::new("Europe/Paris", 3600, Vec::new()).unwrap();
        assert!(!s.zone_rules("Europe/Berlin", Ok(rules.clone())), "another zone's rules: ignored");
        assert_eq!(s.after, "2026-11-22T07:00:00");
        assert!(s.zone_rules("Europe/Paris", Ok(rules)));
        assert_eq!(s.after, "2026-11-22T08:00:00");
    }

    #[test]
    fn the_risks_ahead_name_the_dst_night_whatever_the_count() {
        let mut s = State::new(&setup(Dialect::Agent));
        s.edit("sim-tz", "America/New_York", false);
        s.edit("sim-at", "02:30", false);
        s.edit("sim-after", "2027-03-01T00:00:00", false);
        assert_eq!(s.count, "10", "ten runs: none of them on 2027-03-14");
        assert!(s.current.runs.iter().all(|r| !r.local.starts_with("2027-03-14")));
        let out = s.outputs();
        let html = &out.iter().find(|(id, _)| *id == "sim-risks").unwrap().1;
        assert!(
            html.contains(r#"data-kind="dst_gap""#)
                && html.contains("On 2027-03-14, 02:30 does not exist in America/New_York")
                && html.contains("SQL Server Agent runs it at 03:00, when the gap ends."),
            "{html}"
        );
        // In a zone without DST: none, said so.
        s.edit("sim-tz", "Asia/Tokyo", false);
        let out = s.outputs();
        let html = &out.iter().find(|(id, _)| *id == "sim-risks").unwrap().1;
        assert!(html.contains("None in the 90 days"), "{html}");
        // An invalid row has no risks to tell.
        s.edit("schedule-json", "{", false);
        assert!(s.risks.is_empty());
    }

    #[test]
    fn the_column_editor_reports_as_you_type() {
        assert!(!reports_on_change("text", "col-schedule"), "a column's text field recomputes on input");
        assert!(!reports_on_change("number", "sim-every-n"));
        assert!(!reports_on_change("datetime-local", "sim-after"));
        assert!(reports_on_change("checkbox", "sim-enabled"));
        assert!(!reports_on_change("text", "sim-tz"), "the zone applies as you type");
        let suggested = |n: &str| n == "Europe/Berlin";
        assert!(whole_zone("Europe/Berlin", suggested), "a whole name of the list is fetched");
        assert!(!whole_zone("Europe/Ber", suggested), "a name typed halfway is not");
        assert!(!whole_zone("Europe/Berlin\"]", |_| true), "nothing a selector could misread");
    }

    #[test]
    fn an_events_time_zone_takes_the_zones_the_zone_box_takes() {
        let mut row: Value = serde_json::from_str(example_row(Dialect::MysqlEvent)).unwrap();
        row["TIME_ZONE"] = "Europe/Berlin".into();
        let mut st = setup(Dialect::MysqlEvent);
        st.row = row.to_string();
        let s = State::new(&st);
        // Natively the tz database knows it; the browser asks for its rules, as for the zone box.
        assert_eq!(s.wanted_zone(), None);
        assert!(s.current.errors.is_empty(), "{:?}", s.current.errors);
        assert!(!s.current.runs.is_empty());
        row["TIME_ZONE"] = "+05:30".into();
        st.row = row.to_string();
        assert_eq!(State::new(&st).wanted_zone(), None, "an offset needs no rules");
    }

    #[test]
    fn a_column_keeps_its_type_and_empty_is_null() {
        let base = r#"{"a":1,"b":"x"}"#;
        let j = set_column(base, base, "a", "5").unwrap();
        assert!(j.contains(r#""a": 5"#), "{j}");
        let j = set_column(&j, base, "b", "").unwrap();
        assert!(j.contains(r#""b": null"#), "{j}");
        let j = set_column(&j, base, "a", "ten").unwrap();
        assert!(j.contains(r#""a": "ten""#), "{j}");
        // Typed key by key: "1", "1a", back to "1": the column is a number again.
        let j = set_column(&j, base, "a", "1").unwrap();
        assert!(j.contains(r#""a": 1"#), "{j}");
    }

    #[test]
    fn dates_and_times_round_trip_through_the_controls() {
        assert_eq!(date_text(20240229), "2024-02-29");
        assert_eq!(date_int("2024-02-29"), Some(20240229));
        assert_eq!(date_text(20230229), "", "no such date: the field is empty, the JSON keeps it");
        assert_eq!(time_text(20000), "02:00:00");
        assert_eq!(time_int("02:30"), Some(23000));
        assert_eq!(time_int("23:59:59"), Some(235959));
    }
}
