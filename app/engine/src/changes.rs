//! The history of each job's definition: what changed between two reads of one instance's jobs.
//!
//! A job's [`Definition`] is what its scheduler was told of it (name, owner, enabled, command,
//! steps, schedules), without the run state some dialects keep beside it. [`between`] compares
//! the definitions a previous read saw with a new read's and says each [`Change`]: a job added
//! or removed, its schedule, enabled flag, command, steps or owner changed, each with its
//! before and after. Pure: the server keeps the definitions and the changes in its store, and
//! says when a read saw them (`seen`); the scheduler's own modification time, where it keeps
//! one, comes with the job ([`JobInput::modified`]).
use crate::fleet::JobInput;
use crate::vocab::ScheduleId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a change is about, in the order a job page lists a moment's changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Removed,
    Schedule,
    Enabled,
    Command,
    Steps,
    Owner,
}

/// Every kind, each with its key (the API's `change`) and the words a page says of it.
pub const KINDS: [(ChangeKind, &str, &str); 7] = [
    (ChangeKind::Added, "added", "Job added"),
    (ChangeKind::Removed, "removed", "Job removed"),
    (ChangeKind::Schedule, "schedule", "Schedule changed"),
    (ChangeKind::Enabled, "enabled", "Enabled changed"),
    (ChangeKind::Command, "command", "Command changed"),
    (ChangeKind::Steps, "steps", "Steps changed"),
    (ChangeKind::Owner, "owner", "Owner changed"),
];

impl ChangeKind {
    /// The API's key: `added`, `schedule`, …
    pub fn key(self) -> &'static str {
        KINDS.iter().find(|k| k.0 == self).map_or("", |k| k.1)
    }

    /// What a page says of it: "Schedule changed", …
    pub fn words(self) -> &'static str {
        KINDS.iter().find(|k| k.0 == self).map_or("", |k| k.2)
    }

    /// The kind of an API key; `None` for any other text.
    pub fn of_key(key: &str) -> Option<ChangeKind> {
        KINDS.iter().find(|k| k.1 == key).map(|k| k.0)
    }
}

/// A value before or after a change: a flag (`enabled`) or a text (a schedule, a command…).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Flag(bool),
    Text(String),
}

impl Value {
    /// As a page shows it.
    pub fn text(&self) -> String {
        match self {
            Value::Flag(b) => b.to_string(),
            Value::Text(t) => t.clone(),
        }
    }
}

/// One schedule of a job as its scheduler stores it: its id, its own flag where it differs from
/// the job's (pg_cron's and an event's follow the job's: their change is the job's `enabled`),
/// and each field of its definition as text (`None`: a dialect whose stored row carries its
/// own run state, whose edits Sundial cannot tell from its runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleFields {
    pub id: ScheduleId,
    pub name: String,
    #[serde(default)]
    pub enabled: Option<bool>,
    pub fields: Option<BTreeMap<String, String>>,
}

/// What a job's scheduler was told of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    pub name: String,
    #[serde(default)]
    pub owner: Option<String>,
    pub enabled: bool,
    #[serde(default)]
    pub command: Option<String>,
    /// Each step's text, where the source reads them (none does yet: a hook for SQL Agent's
    /// and pgAgent's steps).
    #[serde(default)]
    pub steps: Option<Vec<String>>,
    pub schedules: Vec<ScheduleFields>,
}

impl Definition {
    /// The definition a read saw of `job`.
    pub fn of(job: &JobInput) -> Definition {
        let schedules = job
            .schedules
            .iter()
            .map(|s| ScheduleFields {
                id: s.id,
                name: s.name.clone(),
                enabled: (s.enabled != job.enabled).then_some(s.enabled),
                fields: s.schedule.definition().map(|d| fields(&d)),
            })
            .collect();
        Definition {
            name: job.name.clone(),
            owner: job.owner.clone(),
            enabled: job.enabled,
            command: job.command.clone(),
            steps: None,
            schedules,
        }
    }

    /// The job's schedules as one text: each schedule's stored fields (named when there are
    /// several).
    fn schedules_text(&self) -> String {
        let named = self.schedules.len() > 1;
        self.schedules.iter().map(|s| one_schedule(s, named)).collect::<Vec<_>>().join("; ")
    }
}

/// A schedule's stored fields as `field=value` pairs (the dialect's tag and the job's own flag,
/// said elsewhere, left out); pg_cron's expression alone.
fn fields(schedule: &crate::Schedule) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(serde_json::Value::Object(map)) = serde_json::to_value(schedule) else { return out };
    for (k, v) in map {
        if k == "kind" || k.eq_ignore_ascii_case("status") || v.is_null() {
            continue;
        }
        let text = match v {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        out.insert(k, text);
    }
    out
}

fn one_schedule(s: &ScheduleFields, named: bool) -> String {
    let fields = match &s.fields {
        Some(f) if f.len() == 1 => f.values().next().cloned().unwrap_or_default(),
        Some(f) => f.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
        None => String::from("(kept by the scheduler with its runs)"),
    };
    let off = match s.enabled {
        Some(false) => " (schedule disabled)",
        Some(true) => " (schedule enabled)",
        None => "",
    };
    if !named || s.name.is_empty() { format!("{fields}{off}") } else { format!("{}: {fields}{off}", s.name) }
}

/// The fields that differ between two versions of one schedule, as `field=value` on each side;
/// `None` when they are not two versions of one schedule with fields.
fn field_diff(before: &ScheduleFields, after: &ScheduleFields) -> Option<(String, String)> {
    let (Some(a), Some(b)) = (&before.fields, &after.fields) else { return None };
    if before.id != after.id || a.len() == 1 && b.len() == 1 {
        return None;
    }
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut was = Vec::new();
    let mut now = Vec::new();
    for k in keys {
        if a.get(k) != b.get(k) {
            was.push(format!("{k}={}", a.get(k).map_or("", |v| v.as_str())));
            now.push(format!("{k}={}", b.get(k).map_or("", |v| v.as_str())));
        }
    }
    if before.enabled != after.enabled {
        let flag = |f: Option<bool>| f.map_or("as the job's".to_owned(), |f| f.to_string());
        was.push(format!("enabled={}", flag(before.enabled)));
        now.push(format!("enabled={}", flag(after.enabled)));
    }
    (!was.is_empty()).then(|| (was.join(" "), now.join(" ")))
}

/// One change Sundial saw of one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The job's id in its scheduler.
    pub job: String,
    /// Its name (the last one seen).
    pub name: String,
    pub kind: ChangeKind,
    pub before: Option<Value>,
    pub after: Option<Value>,
    /// When Sundial's read saw it.
    pub seen: DateTime<Utc>,
    /// The scheduler's own modification time of the job, where it keeps one.
    pub modified: Option<DateTime<Utc>>,
}

/// The changes from `before` (each job's id and definition as a previous read saw it) to the
/// jobs of a read made at `seen`, by job id then kind. A job's changes of one read are each
/// their own [`Change`]; a job added or removed is one change, its definition as its text.
pub fn between(before: &BTreeMap<String, Definition>, jobs: &[JobInput], seen: DateTime<Utc>) -> Vec<Change> {
    let mut out = Vec::new();
    let mut now_ids = std::collections::BTreeSet::new();
    for job in jobs {
        now_ids.insert(job.id.as_str());
        let now = Definition::of(job);
        let change = |kind, before: Option<Value>, after: Option<Value>| Change {
            job: job.id.clone(),
            name: job.name.clone(),
            kind,
            before,
            after,
            seen,
            modified: job.modified,
        };
        let Some(was) = before.get(&job.id) else {
            out.push(change(ChangeKind::Added, None, Some(Value::Text(now.schedules_text()))));
            continue;
        };
        if was.schedules != now.schedules {
            let (a, b) = match (was.schedules.as_slice(), now.schedules.as_slice()) {
                ([a], [b]) => field_diff(a, b).unwrap_or_else(|| (was.schedules_text(), now.schedules_text())),
                _ => (was.schedules_text(), now.schedules_text()),
            };
            out.push(change(ChangeKind::Schedule, Some(Value::Text(a)), Some(Value::Text(b))));
        }
        if was.enabled != now.enabled {
            out.push(change(ChangeKind::Enabled, Some(Value::Flag(was.enabled)), Some(Value::Flag(now.enabled))));
        }
        if was.command != now.command {
            let text = |c: &Option<String>| c.clone().map(Value::Text);
            out.push(change(ChangeKind::Command, text(&was.command), text(&now.command)));
        }
        if was.steps != now.steps && was.steps.is_some() && now.steps.is_some() {
            let text = |s: &Option<Vec<String>>| s.as_ref().map(|s| Value::Text(s.join("\n")));
            out.push(change(ChangeKind::Steps, text(&was.steps), text(&now.steps)));
        }
        if was.owner != now.owner && was.owner.is_some() && now.owner.is_some() {
            let text = |c: &Option<String>| c.clone().map(Value::Text);
            out.push(change(ChangeKind::Owner, text(&was.owner), text(&now.owner)));
        }
    }
    for (id, was) in before.iter().filter(|(id, _)| !now_ids.contains(id.as_str())) {
        out.push(Change {
            job: id.clone(),
            name: was.name.clone(),
            kind: ChangeKind::Removed,
            before: Some(Value::Text(was.schedules_text())),
            after: None,
            seen,
            modified: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cron::CronSchedule;
    use crate::fleet::JobSchedule;

    fn job(id: &str, expr: &str, enabled: bool, owner: &str) -> JobInput {
        JobInput {
            id: id.into(),
            name: format!("job {id}"),
            category: String::new(),
            owner: Some(owner.into()),
            enabled,
            command: Some("SELECT 1".into()),
            schedules: vec![JobSchedule {
                id: 1,
                name: id.into(),
                enabled,
                schedule: crate::Schedule::Cron(CronSchedule { expr: expr.into(), last_start: None }),
            }],
            runs: Vec::new(),
            history_horizon: None,
            source_horizon: None,
            unobserved: Vec::new(),
            diagnostics: Vec::new(),
            earlier: Vec::new(),
            modified: None,
        }
    }

    #[test]
    fn each_field_that_changed_is_its_own_change_and_the_same_definition_none() {
        let seen = DateTime::<Utc>::from_timestamp(1_800_000_000, 0).unwrap();
        let before: BTreeMap<String, Definition> =
            [job("a", "0 1 * * *", true, "etl"), job("gone", "0 4 * * 0", true, "etl")]
                .iter()
                .map(|j| (j.id.clone(), Definition::of(j)))
                .collect();
        let now = [job("a", "0 3 * * *", false, "dba"), job("new", "30 2 * * *", true, "etl")];
        let got: Vec<(String, ChangeKind, Option<Value>, Option<Value>)> =
            between(&before, &now, seen).into_iter().map(|c| (c.job, c.kind, c.before, c.after)).collect();
        let text = |s: &str| Some(Value::Text(s.into()));
        assert_eq!(
            got,
            [
                ("a".into(), ChangeKind::Schedule, text("0 1 * * *"), text("0 3 * * *")),
                ("a".into(), ChangeKind::Enabled, Some(Value::Flag(true)), Some(Value::Flag(false))),
                ("a".into(), ChangeKind::Owner, text("etl"), text("dba")),
                ("new".into(), ChangeKind::Added, None, text("30 2 * * *")),
                ("gone".into(), ChangeKind::Removed, text("0 4 * * 0"), None),
            ],
            "a pg_cron schedule's flag follows the job's: disabling it is one `enabled` change"
        );
        let same: BTreeMap<String, Definition> = now.iter().map(|j| (j.id.clone(), Definition::of(j))).collect();
        assert_eq!(between(&same, &now, seen), []);
    }

    #[test]
    fn every_kind_has_its_own_key_and_words() {
        for (kind, key, words) in KINDS {
            assert_eq!((kind.key(), kind.words(), ChangeKind::of_key(key)), (key, words, Some(kind)));
        }
        assert_eq!(ChangeKind::of_key("renamed"), None);
    }
}
