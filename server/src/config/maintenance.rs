//! The fleet file's maintenance windows (`[[maintenance]]`): planned downtime, in a zone,
//! over the whole fleet, some instances (by name or tag) or some jobs.
//!
//! ```toml
//! [[maintenance]]
//! name = "Saturday patching"
//! every = "Saturday 22:00-02:00"       # days then a wall-clock span (ends the next day here)
//! # cron = "0 22 * * 6"                # or: pg_cron's 5 fields for the starts …
//! # duration = "4h"                    # … and how long each lasts
//! # start = "2026-12-24 20:00"         # or once: from (wall clock in time_zone, or RFC 3339) …
//! # end = "2026-12-25 06:00"           # … to
//! time_zone = "Europe/London"          # default UTC
//! instances = ["SQLPROD01"]            # scope: instances by name …
//! tags = { env = "prod" }              # … or by tags (all must match) …
//! jobs = ["ETL - Nightly Load"]        # … and only these jobs (by name or id); none: the whole fleet
//! reason = "OS updates"
//! ```
use super::Checker;
use super::ConfigError;
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use sundial_engine::maintenance::{self, When};
use sundial_engine::{Window, Zone};
use toml::Spanned;

/// Where a window applies: every listed condition must hold (none: everywhere).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MaintenanceScope {
    /// Instances by name; empty: any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<String>,
    /// Instance tags that must all match; empty: any.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Jobs by name or id; empty: every job.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<String>,
}

impl MaintenanceScope {
    /// Whether it covers (any job of) the instance with this name and these tags.
    pub fn covers_instance(&self, name: &str, tags: &BTreeMap<String, String>) -> bool {
        (self.instances.is_empty() || self.instances.iter().any(|i| i == name))
            && self.tags.iter().all(|(k, v)| tags.get(k) == Some(v))
    }

    /// Whether it covers a problem of that instance and job (`None`: instance-wide; only a
    /// window over every job covers it).
    pub fn covers(&self, name: &str, tags: &BTreeMap<String, String>, job: Option<(&str, &str)>) -> bool {
        self.covers_instance(name, tags)
            && match job {
                None => self.jobs.is_empty(),
                Some((id, job)) => self.jobs.is_empty() || self.jobs.iter().any(|j| j == id || j == job),
            }
    }

    /// In words: "the whole fleet", "SQLPROD01, tag env=prod, jobs ETL".
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if !self.instances.is_empty() {
            parts.push(self.instances.join(", "));
        }
        for (k, v) in &self.tags {
            parts.push(format!("tag {k}={v}"));
        }
        if !self.jobs.is_empty() {
            parts.push(format!("jobs {}", self.jobs.join(", ")));
        }
        if parts.is_empty() { "the whole fleet".to_owned() } else { parts.join("; ") }
    }
}

/// One `[[maintenance]]`, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct MaintenanceConfig {
    pub name: String,
    pub reason: String,
    pub zone: Zone,
    pub when: When,
    pub scope: MaintenanceScope,
    /// The line of its table, for messages and the page.
    pub line: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMaintenance {
    name: Spanned<String>,
    reason: Option<String>,
    every: Option<Spanned<String>>,
    cron: Option<Spanned<String>>,
    duration: Option<Spanned<String>>,
    start: Option<Spanned<String>>,
    end: Option<Spanned<String>>,
    time_zone: Option<Spanned<String>>,
    #[serde(default)]
    instances: Vec<String>,
    #[serde(default)]
    tags: BTreeMap<String, String>,
    #[serde(default)]
    jobs: Vec<String>,
}

/// An instant written as RFC 3339, or as a wall-clock time in `zone` ("2026-12-24 20:00").
pub fn instant_in(text: &str, zone: Zone) -> Option<DateTime<Utc>> {
    let t = text.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Some(d.to_utc());
    }
    ["%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
        .map(|local| sundial_engine::tz::local_to_instant(local, zone))
}

impl Checker<'_> {
    /// Every `[[maintenance]]`: named once each, exactly one way of saying when, a zone, and a
    /// scope naming only configured instances.
    pub(super) fn maintenance(
        &self,
        raw: &[Spanned<RawMaintenance>],
        instances: &[super::InstanceConfig],
    ) -> Result<Vec<MaintenanceConfig>, ConfigError> {
        let mut names = HashSet::new();
        let mut out = Vec::new();
        for (n, spanned) in raw.iter().enumerate() {
            let r = spanned.get_ref();
            let field = |f: &str| format!("maintenance[{n}].{f}");
            let quoted = |v: &Spanned<String>| format!("{:?}", v.get_ref());
            let name = r.name.get_ref().trim().to_owned();
            if name.is_empty() || !names.insert(name.clone()) {
                let why =
                    if name.is_empty() { "a window needs a name" } else { "another window already has this name" };
                return Err(self.invalid(r.name.span(), None, &field("name"), &quoted(&r.name), why));
            }
            let zone: Zone = match &r.time_zone {
                None => chrono_tz::UTC.into(),
                Some(z) => self.zone(z, None, &field("time_zone"))?.into(),
            };
            let when = match (&r.every, &r.cron, &r.start) {
                (Some(e), None, None) => maintenance::parse_weekly(e.get_ref())
                    .map_err(|why| self.invalid(e.span(), None, &field("every"), &quoted(e), &why))?,
                (None, Some(c), None) => {
                    let errors: Vec<String> =
                        sundial_engine::cron::validate(&sundial_engine::cron::CronSchedule::new(c.get_ref().clone()))
                            .into_iter()
                            .filter(|d| d.severity == sundial_engine::Severity::Error)
                            .map(|d| d.message)
                            .collect();
                    if !errors.is_empty() {
                        return Err(self.invalid(c.span(), None, &field("cron"), &quoted(c), &errors.join("; ")));
                    }
                    let Some(d) = &r.duration else {
                        let why = "a cron window needs duration (how long each lasts, like \"4h\")";
                        return Err(self.invalid(c.span(), None, &field("duration"), &"(missing)", why));
                    };
                    let length = self.duration(d, None, &field("duration"))?;
                    When::Cron { expr: c.get_ref().trim().to_owned(), length_secs: length.as_secs() as i64 }
                }
                (None, None, Some(s)) => {
                    let at = |v: &Spanned<String>, f: &str| {
                        instant_in(v.get_ref(), zone).ok_or_else(|| {
                            let why = "not a time like \"2026-12-24 20:00\" (in time_zone) or RFC 3339";
                            self.invalid(v.span(), None, &field(f), &quoted(v), why)
                        })
                    };
                    let start = at(s, "start")?;
                    let end = match &r.end {
                        Some(e) => at(e, "end")?,
                        None => match &r.duration {
                            Some(d) => {
                                start
                                    + chrono::TimeDelta::from_std(self.duration(d, None, &field("duration"))?)
                                        .unwrap_or(chrono::TimeDelta::zero())
                            }
                            None => {
                                let why = "a one-off window needs end (or duration)";
                                return Err(self.invalid(s.span(), None, &field("end"), &"(missing)", why));
                            }
                        },
                    };
                    if end <= start {
                        let why = "ends at or before it starts";
                        let e = r.end.as_ref().unwrap_or(s);
                        return Err(self.invalid(e.span(), None, &field("end"), &quoted(e), why));
                    }
                    When::Once(Window::new(start, end))
                }
                _ => {
                    let why = "say when with exactly one of: every = \"Saturday 22:00-02:00\", cron (with duration), or start (with end)";
                    return Err(self.invalid(spanned.span(), None, &field("every"), &"(missing or several)", why));
                }
            };
            for i in &r.instances {
                if !instances.iter().any(|c| &c.name == i) {
                    let why = "no [[instance]] has this name";
                    return Err(self.invalid(spanned.span(), None, &field("instances"), &format!("{i:?}"), why));
                }
            }
            out.push(MaintenanceConfig {
                name,
                reason: r.reason.clone().unwrap_or_default().trim().to_owned(),
                zone,
                when,
                scope: MaintenanceScope { instances: r.instances.clone(), tags: r.tags.clone(), jobs: r.jobs.clone() },
                line: super::line_of(self.text, spanned.span()),
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::parse;

    const INSTANCE: &str =
        "[[instance]]\nname = \"SQL1\"\nkind = \"sqlite_demo\"\npath = \"demo.sqlite\"\ntags = { env = \"prod\" }\n";

    fn error(window: &str) -> String {
        match parse(&format!("{INSTANCE}\n[[maintenance]]\n{window}"), "fleet.toml") {
            Ok(_) => panic!("accepted: {window}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn each_way_of_saying_when_is_read_in_its_zone() {
        let text = format!(
            "{INSTANCE}\n[[maintenance]]\nname = \"weekly\"\nevery = \"Saturday 22:00-02:00\"\ntime_zone = \"Europe/London\"\ntags = {{ env = \"prod\" }}\n\
             [[maintenance]]\nname = \"cron\"\ncron = \"0 22 * * 6\"\nduration = \"4h\"\njobs = [\"ETL\"]\n\
             [[maintenance]]\nname = \"once\"\nstart = \"2026-12-24 20:00\"\nend = \"2026-12-25 06:00\"\ntime_zone = \"America/New_York\"\ninstances = [\"SQL1\"]\nreason = \"Christmas\"\n"
        );
        let fleet = parse(&text, "fleet.toml").unwrap_or_else(|e| panic!("{e}"));
        let m = &fleet.maintenance;
        assert_eq!(m.iter().map(|w| w.name.as_str()).collect::<Vec<_>>(), ["weekly", "cron", "once"]);
        assert_eq!(m[0].zone.name(), "Europe/London");
        assert!(m[0].scope.covers_instance("SQL1", &[("env".into(), "prod".into())].into()));
        assert!(!m[0].scope.covers_instance("SQL1", &Default::default()), "the tag must match");
        assert_eq!(
            m[1].when,
            sundial_engine::maintenance::When::Cron { expr: "0 22 * * 6".into(), length_secs: 4 * 3600 }
        );
        assert!(m[1].scope.covers("SQL1", &Default::default(), Some(("1", "ETL"))));
        assert!(!m[1].scope.covers("SQL1", &Default::default(), None), "an instance-wide problem needs every job");
        // 20:00 in New York (EST) is 01:00 UTC.
        let sundial_engine::maintenance::When::Once(w) = m[2].when else { panic!("{:?}", m[2].when) };
        assert_eq!(w.start.to_rfc3339(), "2026-12-25T01:00:00+00:00");
        assert_eq!(w.end.to_rfc3339(), "2026-12-25T11:00:00+00:00");
        assert_eq!((m[2].reason.as_str(), m[2].line), ("Christmas", 17), "the line of its [[maintenance]]");
    }

    #[test]
    fn a_bad_window_is_named_by_file_line_and_field() {
        let cases = [
            ("name = \"x\"\n", "maintenance[0].every = (missing or several): say when with exactly one of"),
            ("name = \"x\"\nevery = \"sat 22:00\"\ncron = \"0 22 * * 6\"\n", "(missing or several)"),
            (
                "name = \"x\"\nevery = \"Funday 22:00-23:00\"\n",
                "fleet.toml:9: maintenance[0].every = \"Funday 22:00-23:00\": \"funday\" is not a day",
            ),
            ("name = \"x\"\ncron = \"0 25 * * *\"\nduration = \"1h\"\n", "maintenance[0].cron = \"0 25 * * *\""),
            (
                "name = \"x\"\ncron = \"0 22 * * 6\"\n",
                "maintenance[0].duration = (missing): a cron window needs duration",
            ),
            (
                "name = \"x\"\nstart = \"tomorrow\"\nend = \"2026-12-25 06:00\"\n",
                "maintenance[0].start = \"tomorrow\": not a time like",
            ),
            (
                "name = \"x\"\nstart = \"2026-12-25 06:00\"\nend = \"2026-12-25 05:00\"\n",
                "maintenance[0].end = \"2026-12-25 05:00\": ends at or before it starts",
            ),
            ("name = \"x\"\nstart = \"2026-12-25 06:00\"\n", "a one-off window needs end (or duration)"),
            (
                "name = \"x\"\nevery = \"daily 01:00-02:00\"\ntime_zone = \"Mars/Olympus\"\n",
                "maintenance[0].time_zone = \"Mars/Olympus\": not an IANA time zone",
            ),
            (
                "name = \"x\"\nevery = \"daily 01:00-02:00\"\ninstances = [\"SQL2\"]\n",
                "maintenance[0].instances = \"SQL2\": no [[instance]] has this name",
            ),
            ("name = \"\"\nevery = \"daily 01:00-02:00\"\n", "a window needs a name"),
            ("name = \"x\"\nevery = \"daily 01:00-02:00\"\ncolour = \"red\"\n", "unknown field `colour`"),
        ];
        for (window, want) in cases {
            let got = error(window);
            assert!(got.contains(want), "{window:?}: {got}");
            assert!(got.starts_with("fleet.toml:"), "{got}");
        }
        let twice = format!(
            "{INSTANCE}\n[[maintenance]]\nname = \"x\"\nevery = \"daily 01:00-02:00\"\n[[maintenance]]\nname = \"x\"\nevery = \"daily 03:00-04:00\"\n"
        );
        let got = parse(&twice, "fleet.toml").unwrap_err().to_string();
        assert!(
            got.contains("fleet.toml:11: maintenance[1].name = \"x\": another window already has this name"),
            "{got}"
        );
    }
}
