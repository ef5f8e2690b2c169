//! The fleet file's deadlines (`[[deadline]]`): by when a job must have succeeded, on which
//! days, in a zone, for some instances (by name or tag) and jobs.
//!
//! ```toml
//! [[deadline]]
//! name = "Ledger ready for finance"
//! instances = ["SQLPROD01"]            # instances by name …
//! # tags = { env = "prod" }            # … or by tags (all must match); neither: every instance
//! jobs = ["ETL - Nightly Load"]        # the jobs (by name or id) that must succeed by then
//! by = "06:00"                         # wall clock in time_zone
//! days = "weekdays"                    # the maintenance windows' days: "daily", "mon,wed", "mon-fri"…
//! time_zone = "Europe/London"          # default UTC
//! ```
//!
//! Judged by [`sundial_engine::deadlines`]: a miss is a `deadline_missed` problem.
use super::Checker;
use super::ConfigError;
use super::MaintenanceScope;
use chrono::NaiveTime;
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use sundial_engine::Zone;
use sundial_engine::deadlines::Deadline;
use toml::Spanned;

/// One `[[deadline]]`, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadlineConfig {
    /// Its name, by, days and zone, as the engine judges it.
    pub deadline: Deadline,
    /// The instances and jobs it holds for (`jobs` never empty).
    pub scope: MaintenanceScope,
    /// The line of its table, for messages.
    pub line: usize,
}

impl DeadlineConfig {
    /// Whether it holds for the job with this id and name of the instance with this name and
    /// these tags.
    pub fn covers(&self, instance: &str, tags: &BTreeMap<String, String>, id: &str, job: &str) -> bool {
        self.scope.covers(instance, tags, Some((id, job)))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDeadline {
    name: Spanned<String>,
    by: Option<Spanned<String>>,
    days: Option<Spanned<String>>,
    time_zone: Option<Spanned<String>>,
    instances: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    tags: BTreeMap<String, String>,
    jobs: Option<Spanned<Vec<String>>>,
}

impl Checker<'_> {
    /// Every `[[deadline]]`: named once each, a time, days, a zone, jobs, and instances that
    /// are configured.
    pub(super) fn deadlines(
        &self,
        raw: &[Spanned<RawDeadline>],
        instances: &[super::InstanceConfig],
    ) -> Result<Vec<DeadlineConfig>, ConfigError> {
        let mut names = HashSet::new();
        let mut out = Vec::new();
        for (n, spanned) in raw.iter().enumerate() {
            let r = spanned.get_ref();
            let field = |f: &str| format!("deadline[{n}].{f}");
            let quoted = |v: &Spanned<String>| format!("{:?}", v.get_ref());
            let name = r.name.get_ref().trim().to_owned();
            if name.is_empty() || !names.insert(name.clone()) {
                let why =
                    if name.is_empty() { "a deadline needs a name" } else { "another deadline already has this name" };
                return Err(self.invalid(r.name.span(), None, &field("name"), &quoted(&r.name), why));
            }
            let zone: Zone = match &r.time_zone {
                None => chrono_tz::UTC.into(),
                Some(z) => self.zone(z, None, &field("time_zone"))?.into(),
            };
            let Some(by) = &r.by else {
                let why = "a deadline needs by (a wall-clock time like \"06:00\")";
                return Err(self.invalid(spanned.span(), None, &field("by"), &"(missing)", why));
            };
            let by_time = NaiveTime::parse_from_str(by.get_ref().trim(), "%H:%M")
                .map_err(|_| self.invalid(by.span(), None, &field("by"), &quoted(by), "not a time like \"06:00\""))?;
            let days = match &r.days {
                None => [true; 7],
                Some(d) => sundial_engine::maintenance::parse_days(d.get_ref().trim())
                    .map_err(|why| self.invalid(d.span(), None, &field("days"), &quoted(d), &why))?,
            };
            let listed: &[String] = r.jobs.as_ref().map(|j| j.get_ref().as_slice()).unwrap_or_default();
            let jobs: Vec<String> = listed.iter().map(|j| j.trim().to_owned()).collect();
            if jobs.is_empty() || jobs.iter().any(String::is_empty) {
                let why = "name the jobs that must succeed by then (by name or id)";
                let span = r.jobs.as_ref().map_or(spanned.span(), |j| j.span());
                return Err(self.invalid(span, None, &field("jobs"), &format!("{listed:?}"), why));
            }
            let named: Vec<String> = r.instances.as_ref().map(|i| i.get_ref().clone()).unwrap_or_default();
            for i in &named {
                if !instances.iter().any(|c| &c.name == i) {
                    let why = "no [[instance]] has this name";
                    let span = r.instances.as_ref().map_or(spanned.span(), |i| i.span());
                    return Err(self.invalid(span, None, &field("instances"), &format!("{i:?}"), why));
                }
            }
            out.push(DeadlineConfig {
                deadline: Deadline { name, by: by_time, days, zone },
                scope: MaintenanceScope { instances: named, tags: r.tags.clone(), jobs },
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

    fn error(deadline: &str) -> String {
        match parse(&format!("{INSTANCE}\n[[deadline]]\n{deadline}"), "fleet.toml") {
            Ok(_) => panic!("accepted: {deadline}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_deadline_is_read_with_its_days_zone_and_scope() {
        let text = format!(
            "{INSTANCE}\n[[deadline]]\nname = \"Ledger ready for finance\"\ninstances = [\"SQL1\"]\njobs = [\"ETL - Nightly Load\"]\n\
             by = \"06:00\"\ndays = \"weekdays\"\ntime_zone = \"Europe/London\"\n\
             [[deadline]]\nname = \"Backups\"\ntags = {{ env = \"prod\" }}\njobs = [\"7\"]\nby = \"00:00\"\ndays = \"mon,wed\"\n"
        );
        let fleet = parse(&text, "fleet.toml").unwrap_or_else(|e| panic!("{e}"));
        let d = &fleet.deadlines;
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].deadline.words(), "weekdays by 06:00 Europe/London");
        assert_eq!(d[0].line, 7, "the line of its [[deadline]]");
        assert!(d[0].covers("SQL1", &Default::default(), "1", "ETL - Nightly Load"));
        assert!(!d[0].covers("SQL1", &Default::default(), "2", "Other"), "only the jobs named");
        assert_eq!(d[1].deadline.words(), "Monday, Wednesday by 00:00 UTC");
        assert!(d[1].covers("SQL1", &[("env".into(), "prod".into())].into(), "7", "backup"));
        assert!(!d[1].covers("SQL1", &Default::default(), "7", "backup"), "the tag must match");
    }

    #[test]
    fn a_bad_deadline_is_named_by_file_line_and_field() {
        let ok = "jobs = [\"ETL\"]\nby = \"06:00\"\n";
        let cases = [
            (format!("name = \"\"\n{ok}"), "fleet.toml:8: deadline[0].name = \"\": a deadline needs a name"),
            ("name = \"x\"\njobs = [\"ETL\"]\n".to_owned(), "deadline[0].by = (missing): a deadline needs by"),
            (
                "name = \"x\"\njobs = [\"ETL\"]\nby = \"6 am\"\n".to_owned(),
                "fleet.toml:10: deadline[0].by = \"6 am\": not a time like \"06:00\"",
            ),
            (
                "name = \"x\"\njobs = [\"ETL\"]\nby = \"25:00\"\n".to_owned(),
                "deadline[0].by = \"25:00\": not a time like",
            ),
            (
                format!("name = \"x\"\n{ok}days = \"Funday\"\n"),
                "fleet.toml:11: deadline[0].days = \"Funday\": \"funday\" is not a day",
            ),
            (
                format!("name = \"x\"\n{ok}time_zone = \"Mars/Olympus\"\n"),
                "fleet.toml:11: deadline[0].time_zone = \"Mars/Olympus\": not an IANA time zone",
            ),
            (
                "name = \"x\"\nby = \"06:00\"\n".to_owned(),
                "deadline[0].jobs = []: name the jobs that must succeed by then",
            ),
            (
                "name = \"x\"\nby = \"06:00\"\njobs = []\n".to_owned(),
                "fleet.toml:10: deadline[0].jobs = []: name the jobs",
            ),
            (
                format!("name = \"x\"\n{ok}instances = [\"SQL2\"]\n"),
                "fleet.toml:11: deadline[0].instances = \"SQL2\": no [[instance]] has this name",
            ),
            (format!("name = \"x\"\n{ok}colour = \"red\"\n"), "unknown field `colour`"),
        ];
        for (deadline, want) in cases {
            let got = error(&deadline);
            assert!(got.contains(want), "{deadline:?}: {got}");
            assert!(got.starts_with("fleet.toml:"), "{got}");
        }
        let twice = format!("{INSTANCE}\n[[deadline]]\nname = \"x\"\n{ok}[[deadline]]\nname = \"x\"\n{ok}");
        let got = parse(&twice, "fleet.toml").unwrap_err().to_string();
        assert!(
            got.contains("fleet.toml:12: deadline[1].name = \"x\": another deadline already has this name"),
            "{got}"
        );
    }
}
