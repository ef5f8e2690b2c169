//! The simulator's server side: the URL's state resolved into a [`SimSetup`] (the zone's
//! rules, the job's schedules and the instance's other jobs), and a zone's rules on demand.
//! Everything after that is computed in the browser.
use crate::api::ApiError;
use crate::components::simulator::model::SimSetup;
use crate::engine::ZoneRules;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// `/simulate`'s query, as the page reads it (every field optional; see the page's docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimQuery {
    pub dialect: Option<String>,
    pub after: Option<String>,
    pub count: Option<String>,
    pub tz: Option<String>,
    pub row: Option<String>,
    pub instance: Option<String>,
    pub job: Option<String>,
    pub schedule: Option<String>,
    pub days: Option<String>,
    pub pg_cron: Option<String>,
}

/// The simulator's starting state for a URL.
#[server(prefix = "/api/fn", endpoint = "simulate_setup")]
pub async fn simulate_setup(query: SimQuery) -> Result<SimSetup, ApiError> {
    ssr::setup(query).await
}

/// A zone's UTC offset transitions from 1970 to 2100, for the browser's engine.
#[server(prefix = "/api/fn", endpoint = "zone_rules")]
pub async fn fetch_zone_rules(name: String) -> Result<ZoneRules, ApiError> {
    ssr::rules(&name).ok_or_else(|| ApiError::NotFound { what: format!("time zone {name:?}") })
}

#[cfg(feature = "ssr")]
pub mod ssr {
    use super::*;
    use crate::components::simulator::model::{self, SimJob, SimOther};
    use crate::components::simulator::state::example_row;
    use crate::engine::edit::{self, Dialect, Target};
    use crate::engine::replay::{Estimate, duration_stats};
    use crate::engine::{Run, Schedule, Zone, tz};
    use chrono::{DateTime, TimeZone, Utc};

    /// The rules of an IANA zone for 1970–2100 (`None` for a name the tz database lacks).
    pub fn rules(name: &str) -> Option<ZoneRules> {
        let tz: chrono_tz::Tz = name.trim().parse().ok()?;
        let from = Utc.with_ymd_and_hms(1970, 1, 1, 0, 0, 0).single()?;
        let to = Utc.with_ymd_and_hms(2100, 1, 1, 0, 0, 0).single()?;
        Some(ZoneRules::from_tz(tz, from, to))
    }

    /// Every IANA zone name the server knows, for the zone field's suggestions.
    pub fn zone_names() -> Vec<&'static str> {
        chrono_tz::TZ_VARIANTS.iter().map(|z| z.name()).collect()
    }

    /// p50 and p95 of a job's finished runs.
    fn estimate(runs: &[Run]) -> Option<Estimate> {
        let d: Vec<i64> = runs.iter().map(|r| r.duration_secs).collect();
        duration_stats(&d).map(Estimate::from)
    }

    pub async fn setup(q: SimQuery) -> Result<SimSetup, ApiError> {
        let mut notes = Vec::new();
        let blank = |s: &Option<String>| s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
        // The job, when the URL names one: its schedules and its instance around it.
        let (job, instance_tz) = match blank(&q.job) {
            Some(id) => {
                let (j, tz) = job(blank(&q.instance).as_deref(), &id, blank(&q.schedule).as_deref()).await?;
                (Some(j), Some(tz))
            }
            None => (None, None),
        };
        let now = match &job {
            Some(j) => DateTime::<Utc>::from_timestamp_millis(j.now_ms).unwrap_or_default(),
            None => crate::api::ssr::report(None, 1)
                .await
                .map(|r| r.now)
                .unwrap_or_else(|_| DateTime::<Utc>::from(std::time::SystemTime::now())),
        };
        let dialect = match (&job, blank(&q.dialect)) {
            (Some(j), _) => Dialect::parse(&j.dialect).unwrap_or(Dialect::Agent),
            (None, Some(d)) => Dialect::parse(&d).ok_or_else(|| {
                ApiError::BadRequest(format!("dialect must be one of {}", Dialect::ALL.map(|d| d.key()).join(", ")))
            })?,
            (None, None) => Dialect::Agent,
        };
        // As written: the page's state pretty-prints it (a link carries it compact).
        let row = match (blank(&q.row), &job) {
            (Some(r), _) => r,
            (None, Some(j)) => j.original.clone(),
            (None, None) => example_row(dialect).to_owned(),
        };
        let tz_name = blank(&q.tz).or(instance_tz).unwrap_or_else(|| "UTC".into());
        let rules = match rules(&tz_name) {
            Some(r) => r,
            None => {
                notes.push(format!("Unknown time zone {tz_name:?}: showing UTC."));
                rules("UTC").ok_or_else(|| ApiError::Transport("no UTC rules".into()))?
            }
        };
        let zone = Zone::from_name(rules.name()).unwrap_or(Zone::UTC);
        let after = match blank(&q.after) {
            Some(a) => a,
            None => tz::to_local(now, zone).format(model::LOCAL_FORMAT).to_string(),
        };
        let count = match blank(&q.count) {
            None => model::DEFAULT_COUNT,
            Some(c) => match c.parse::<usize>() {
                Ok(n @ 1..=model::MAX_COUNT) => n,
                _ => {
                    notes.push(format!(
                        "count must be a number from 1 to {}, not {c:?}: showing {}.",
                        model::MAX_COUNT,
                        model::DEFAULT_COUNT
                    ));
                    model::DEFAULT_COUNT
                }
            },
        };
        let days = blank(&q.days)
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|d| (1..=model::MAX_DAYS).contains(d))
            .unwrap_or(model::DEFAULT_DAYS);
        let pg_cron = blank(&q.pg_cron).and_then(|v| {
            let (a, b) = v.split_once('.')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        });
        Ok(SimSetup {
            dialect: dialect.key().to_owned(),
            row,
            after,
            count,
            rules,
            pg_cron,
            days,
            job,
            notes,
            now_ms: now.timestamp_millis(),
        })
    }

    /// The schedule's row with the target's key columns, so the browser reads both from it.
    fn row_with_keys(schedule: &Schedule, target: &Target) -> String {
        use serde_json::{Value, json};
        let keys = match target {
            Target::Agent { schedule_id, name } => json!({ "schedule_id": schedule_id, "name": name }),
            Target::Cron { jobid, jobname } => json!({ "jobid": jobid, "jobname": jobname }),
            Target::MysqlEvent { schema, name } => json!({ "EVENT_SCHEMA": schema, "EVENT_NAME": name }),
            _ => json!({}),
        };
        let row = edit::to_row(schedule);
        match (serde_json::from_str::<Value>(&row), keys) {
            (Ok(Value::Object(mut r)), Value::Object(k)) => {
                for (name, v) in k {
                    if !v.is_null() {
                        r.insert(name, v);
                    }
                }
                serde_json::to_string_pretty(&Value::Object(r)).unwrap_or(row)
            }
            _ => row,
        }
    }

    /// The job and its instance's zone name, from one report.
    async fn job(instance: Option<&str>, id: &str, schedule: Option<&str>) -> Result<(SimJob, String), ApiError> {
        let report = crate::api::ssr::report(instance, 30).await?;
        let j =
            report.jobs.iter().find(|j| j.id == id).ok_or_else(|| ApiError::NotFound { what: format!("job {id}") })?;
        let chosen = match schedule {
            Some(s) => j
                .schedules
                .iter()
                .find(|x| x.id.to_string() == s)
                .ok_or_else(|| ApiError::NotFound { what: format!("schedule {s} of job {}", j.name) })?,
            None => j
                .schedules
                .first()
                .ok_or_else(|| ApiError::BadRequest(format!("job {} has no schedule to simulate", j.name)))?,
        };
        let dialect = Dialect::of(&chosen.schedule);
        let target = match &chosen.schedule {
            Schedule::Agent(_) => Target::Agent { schedule_id: Some(chosen.id), name: Some(chosen.name.clone()) },
            Schedule::Cron(_) => Target::Cron { jobid: Some(chosen.id), jobname: Some(j.name.clone()) },
            Schedule::MysqlEvent(_) => match j.name.split_once('.') {
                Some((schema, name)) => Target::mysql_event(schema, name),
                None => Target::MysqlEvent { schema: None, name: Some(j.name.clone()) },
            },
            _ => Target::none(dialect),
        };
        let pair = |e: Option<Estimate>| e.map(|e| (e.p50_secs, e.p95_secs));
        let others = report
            .jobs
            .iter()
            .filter(|o| o.id != j.id)
            .map(|o| SimOther {
                name: o.name.clone(),
                schedules: o
                    .schedules
                    .iter()
                    .filter(|s| s.enabled && o.enabled)
                    .map(|s| (s.id, edit::to_row(&s.schedule)))
                    .collect(),
                estimate: pair(estimate(&o.runs)),
            })
            .collect();
        let job = SimJob {
            instance: report.name.clone(),
            id: j.id.clone(),
            name: j.name.clone(),
            dialect: dialect.key().to_owned(),
            schedule_id: chosen.id,
            original: row_with_keys(&chosen.schedule, &target),
            schedules: j
                .schedules
                .iter()
                .filter(|s| s.enabled || s.id == chosen.id)
                .map(|s| (s.id, s.name.clone(), edit::to_row(&s.schedule)))
                .collect(),
            estimate: pair(estimate(&j.runs)),
            others,
            now_ms: report.now.timestamp_millis(),
        };
        Ok((job, report.tz.name().to_owned()))
    }
}
